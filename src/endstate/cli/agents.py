"""`endstate agents`: every agent kind installed, with its options as `--agent-option` takes
them."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table


def agents_cmd() -> None:
    """List the agent kinds (built-in and plug-in) and each one's options with defaults."""
    from endstate.agents.options import describe
    from endstate.agents.registry import agent_kinds

    table = Table(show_edge=False)
    for column in ("agent", "what it is", "option", "default", "meaning"):
        table.add_column(column)
    for kind in agent_kinds().values():
        rows = describe(kind.options) or [("", "", "(no options)")]
        for i, (key, default, meaning) in enumerate(rows):
            first = i == 0
            table.add_row(
                kind.usage if first else "", kind.summary if first else "", key, default, meaning
            )
    Console(file=sys.stdout, width=160).print(table)

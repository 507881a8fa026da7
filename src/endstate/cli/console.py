"""The command line's consoles. Markup is off: task ids, file names, reasons and values come
from files anyone can write, and `[/]` or `[red]` in one of them must print as itself, never
raise or restyle the line. Styles are applied as Text spans instead (`labelled`)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

out = Console(markup=False)
err = Console(stderr=True, markup=False)


def labelled(label: str, style: str, rest: str) -> Text:
    """`label` in `style`, then `rest` exactly as given."""
    return Text.assemble((label, style), " ", rest)

"""The agent options a run is given: `--agent-option KEY=VALUE`, and the older per-option flags
read as its aliases from the arguments `run` does not declare itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from endstate.agents.options import ALIASES, FLAG_ONLY, assignments, gather
from endstate.errors import EndstateError


def _aliased(extra: Sequence[str]) -> list[tuple[str, Any]]:
    """The alias flags in `extra` as (key, value); any other argument is refused by name."""
    out: list[tuple[str, Any]] = []
    rest = list(extra)
    while rest:
        flag = rest.pop(0)
        name, eq, inline = flag.partition("=")
        if name == "--no-marks" and not eq:
            out.append(("marks", False))
        elif name in FLAG_ONLY and not eq:
            out.append((ALIASES[name], True))
        elif name in ALIASES and name not in FLAG_ONLY:
            if eq:
                out.append((ALIASES[name], inline))
            elif rest and not rest[0].startswith("--"):
                out.append((ALIASES[name], rest.pop(0)))
            else:
                raise EndstateError(f"{name} needs a value (an alias of --agent-option)")
        else:
            raise EndstateError(f"no such option: {flag} (see endstate run --help)")
    return out


def agent_options_given(options: Sequence[str], extra: Sequence[str]) -> dict[str, Any] | None:
    """What was given for the agent's kind, None when nothing was (a resumed run keeps its own)."""
    pairs = _aliased(extra) + assignments(options)
    return gather(pairs) if pairs else None

"""Agent kinds, registered by name: the built-ins and any an installed package declares.

A kind is one `AgentKind`: its name (the part of a spec before `:`), what its argument means,
its options (a pydantic model of its own, `endstate.agents.options`) and a factory. What an
agent needs from the harness (a page in the shared browser, its own browser, a sandbox) is
declared by the agent object it makes (`uses_page`, `isolation()`), never inferred from its
name. An outside package adds a kind without editing endstate:

    [project.entry-points."endstate.agents"]
    mine = "my_package.agent:KIND"      # an AgentKind

`endstate run --agent mine:ARG` then finds it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from endstate.agents.base import Agent
from endstate.agents.options import KindOptions, NoOptions, pinned, validate
from endstate.errors import EndstateError
from endstate.plugins import Registry

ENTRY_POINT_GROUP = "endstate.agents"


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent: `name[:argument]` on the command line, and how to make one."""

    name: str
    argument: str | None  # what follows `name:` (e.g. "MODEL"); None: the kind takes none
    make: Callable[[str, Any], Agent]  # (argument, an instance of `options`)
    summary: str = ""
    options: type[KindOptions] = NoOptions

    @property
    def usage(self) -> str:
        return f"{self.name}:{self.argument}" if self.argument else self.name


KINDS: Registry[AgentKind] = Registry(ENTRY_POINT_GROUP, AgentKind, "endstate.agents.builtin_kinds")


def register_agent(kind: AgentKind) -> AgentKind:
    """Add a kind; a name already taken is refused (a plug-in cannot shadow a built-in)."""
    return KINDS.register(kind)


def agent_kinds() -> dict[str, AgentKind]:
    """Every kind: the built-ins, then those installed packages declare (loaded once)."""
    return KINDS.items()


def kind_of(spec: str) -> tuple[AgentKind, str]:
    """The kind a spec names and its argument; a spec no kind takes is a one-line error."""
    name, colon, arg = spec.partition(":")
    kinds = agent_kinds()
    kind = kinds.get(name)
    if kind is None or (kind.argument is None) != (not colon) or (kind.argument and not arg):
        expected = ", ".join(k.usage for k in kinds.values())
        raise EndstateError(f"agent spec {spec!r}: expected {expected}")
    return kind, arg


def agent_options(spec: str, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The spec's kind's options from what was given, validated, as the manifest pins them."""
    kind, _ = kind_of(spec)
    return pinned(validate(kind.name, kind.options, given or {}))


MADE_WITH = "endstate_options"  # the attribute a made agent carries its pinned options in


def make_agent(spec: str, options: Mapping[str, Any] | None = None) -> Agent:
    """The agent a spec names (`null`, `llm:MODEL`, …), with its kind's options; the agent
    carries them as pinned (`made_with`), so a run pins what the agent was made from."""
    kind, arg = kind_of(spec)
    valid = validate(kind.name, kind.options, options or {})
    agent = kind.make(arg, valid)
    with contextlib.suppress(AttributeError):  # an agent class with __slots__ keeps none
        setattr(agent, MADE_WITH, pinned(valid))
    return agent


def made_with(agent: Agent) -> dict[str, Any] | None:
    """The options `make_agent` made this agent from, None for an agent made otherwise."""
    found = getattr(agent, MADE_WITH, None)
    return dict(found) if isinstance(found, dict) else None

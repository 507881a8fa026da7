"""Agent kinds, registered by name: the built-ins and any an installed package declares.

A kind is one `AgentKind`: its name (the part of a spec before `:`), what its argument means,
and a factory. What an agent needs from the harness (a page in the shared browser, its own
browser, a sandbox) is declared by the agent object it makes (`uses_page`, `isolation()`),
never inferred from its name. An outside package adds a kind without editing endstate:

    [project.entry-points."endstate.agents"]
    mine = "my_package.agent:KIND"      # an AgentKind

`endstate run --agent mine:ARG` then finds it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from endstate.agents.base import Agent
from endstate.errors import EndstateError
from endstate.plugins import Registry

ENTRY_POINT_GROUP = "endstate.agents"


@dataclass(frozen=True)
class AgentOptions:
    """Options that only some agent kinds use."""

    base_url: str | None = None
    prompt_mode: str = "task"
    temperature: float = 0.0
    max_steps: int = 50
    pass_env: tuple[str, ...] = field(default_factory=tuple)
    isolation: str = "sandbox"
    mounts: tuple[Path, ...] = field(default_factory=tuple)
    egress: tuple[str, ...] = field(default_factory=tuple)
    observe: str = "screenshot"  # computer-use agents: screenshot | accessibility | both
    marks: bool = False  # computer-use agents: set-of-marks on the screenshot
    viewport: str = "1280x800"  # computer-use agents: the pinned browser size, WIDTHxHEIGHT
    screens_cap_mb: float = 20.0  # computer-use agents: screenshots kept per attempt's trace
    tool_version: str | None = None  # cu-anthropic: the computer tool's pinned version
    keep_images: int = 3  # cu-anthropic: screenshots kept in the conversation
    action_timeout_s: float = 3.0  # replay and llm agents: how long one action waits


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent: `name[:argument]` on the command line, and how to make one."""

    name: str
    argument: str | None  # what follows `name:` (e.g. "MODEL"); None: the kind takes none
    make: Callable[[str, AgentOptions], Agent]
    summary: str = ""

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


def make_agent(spec: str, options: AgentOptions | None = None) -> Agent:
    """The agent a spec names (`null`, `llm:MODEL`, …)."""
    name, colon, arg = spec.partition(":")
    kinds = agent_kinds()
    kind = kinds.get(name)
    if kind is None or (kind.argument is None) != (not colon) or (kind.argument and not arg):
        expected = ", ".join(k.usage for k in kinds.values())
        raise EndstateError(f"agent spec {spec!r}: expected {expected}")
    return kind.make(arg, options or AgentOptions())

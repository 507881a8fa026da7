"""Agent specs on the command line: `null`, `replay:FILE`, `command:CMD`, `llm:MODEL`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from endstate.agents.base import Agent
from endstate.errors import EndstateError

KINDS = ("null", "replay", "command", "llm")


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


def make_agent(spec: str, options: AgentOptions | None = None) -> Agent:
    options = options or AgentOptions()
    kind, _, arg = spec.partition(":")
    if kind == "null" and not arg:
        from endstate.agents.null import NullAgent

        return NullAgent()
    if kind == "command" and arg:
        from endstate.agents.command import CommandAgent

        return CommandAgent(
            arg,
            pass_env=options.pass_env,
            isolation=options.isolation,  # type: ignore[arg-type]  # checked by CommandAgent
            mounts=options.mounts,
            egress=options.egress,
        )
    if kind == "replay" and arg:
        from endstate.agents.replay import ReplayAgent

        path = Path(arg)
        if not path.is_file():
            raise EndstateError(f"{path}: trajectory file not found")
        return ReplayAgent(path)
    if kind == "llm" and arg:
        from endstate.agents.llm import LLMAgent

        return LLMAgent(
            model=arg,
            base_url=options.base_url or "https://api.openai.com/v1",
            prompt_mode=options.prompt_mode,  # type: ignore[arg-type]
            max_steps=options.max_steps,
            temperature=options.temperature,
        )
    raise EndstateError(
        f"agent spec {spec!r}: expected null, replay:FILE, command:CMD or llm:MODEL"
    )

"""The agent kinds endstate ships, registered like any plug-in's (imports deferred: a run pays
only for the agent it uses)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from endstate.agents.base import Agent
from endstate.agents.browser_options import ActingOptions, LLMOptions, ToolsModelOptions
from endstate.agents.command_options import CommandOptions
from endstate.agents.cu_options import AnthropicComputerOptions, ComputerUseOptions
from endstate.agents.options import NoOptions
from endstate.agents.registry import AgentKind, register_agent
from endstate.errors import EndstateError

if TYPE_CHECKING:
    from endstate.agents.computer import ComputerBackend
    from endstate.agents.perform import ActOptions


def _null(arg: str, options: NoOptions) -> Agent:
    from endstate.agents.null import NullAgent

    return NullAgent()


def _command(arg: str, options: CommandOptions) -> Agent:
    from endstate.agents.command import CommandAgent

    return CommandAgent(
        arg,
        pass_env=options.pass_env,
        isolation=options.isolation,
        mounts=options.mounts,
        egress=options.egress,
        build_root=options.build_root,
        build_ignore=options.build_ignore,
    )


def _acting(options: ActingOptions) -> ActOptions:
    """How the replay and llm agents perform an action: `--action-timeout` bounds the wait
    for its target, which a loaded machine may need longer than the default."""
    from endstate.agents.perform import ActOptions

    return ActOptions(timeout_ms=options.action_timeout_s * 1000)


def _replay(arg: str, options: ActingOptions) -> Agent:
    from endstate.agents.replay import ReplayAgent

    path = Path(arg)
    if not path.exists():
        raise EndstateError(f"{path}: no trajectory file or folder there")
    return ReplayAgent(path, options=_acting(options))


def _llm_tools(arg: str, options: ToolsModelOptions) -> Agent:
    from endstate.agents.llm_tools import LLMToolsAgent

    return LLMToolsAgent(
        model=arg,
        base_url=options.base_url,
        max_steps=options.max_steps,
        temperature=options.temperature,
    )


def _tools_replay(arg: str, options: NoOptions) -> Agent:
    from endstate.agents.tools_replay import ToolsReplayAgent

    path = Path(arg)
    if not path.is_dir():
        raise EndstateError(f"{path}: no folder of tool runs (<task id>.json) there")
    return ToolsReplayAgent(path)


def _llm(arg: str, options: LLMOptions) -> Agent:
    from endstate.agents.llm import LLMAgent

    return LLMAgent(
        model=arg,
        base_url=options.base_url,
        prompt_mode=options.prompt_mode,
        max_steps=options.max_steps,
        temperature=options.temperature,
        options=_acting(options),
    )


def _computer_use(
    kind: str, arg: str, options: ComputerUseOptions, make_backend: Callable[[], ComputerBackend]
) -> Agent:
    """The generic screenshot-and-coordinates loop around one vendor's backend (a fresh
    backend per attempt: a backend holds one conversation)."""
    from endstate.agents.computer_loop import ComputerUseAgent, parse_observation, parse_viewport

    return ComputerUseAgent(
        kind,
        make_backend,
        name=f"{kind}:{arg}",
        observation=parse_observation(options.observe),
        prompt_mode=options.prompt_mode,
        marks=options.marks,
        viewport=parse_viewport(options.viewport),
        max_steps=options.max_steps,
        screens_cap=int(options.screens_cap_mb * 1_000_000),
    )


def _chat_computer(kind: str, arg: str, options: ComputerUseOptions, vendor: str) -> Agent:
    from endstate.agents.chat_backend import GEMINI_BASE_URL, ChatBackend

    gemini = vendor == "gemini"
    base_url = options.base_url or (GEMINI_BASE_URL if gemini else None)
    if base_url is None:
        raise EndstateError(
            f"{kind}:{arg} needs --agent-option base_url=URL (an OpenAI-compatible endpoint)"
        )
    key_env = "GEMINI_API_KEY" if gemini else "ENDSTATE_AGENT_API_KEY"

    def backend() -> ChatBackend:
        return ChatBackend(
            arg, base_url, vendor=vendor, api_key_env=key_env, temperature=options.temperature
        )

    return _computer_use(kind, arg, options, backend)


def _cu_chat(arg: str, options: ComputerUseOptions) -> Agent:
    return _chat_computer("cu-chat", arg, options, "openai-chat")


def _cu_gemini(arg: str, options: ComputerUseOptions) -> Agent:
    return _chat_computer("cu-gemini", arg, options, "gemini")


def _cu_anthropic(arg: str, options: AnthropicComputerOptions) -> Agent:
    from endstate.agents.anthropic_backend import DEFAULT_TOOL_VERSION, AnthropicComputerBackend

    def backend() -> AnthropicComputerBackend:
        return AnthropicComputerBackend(
            arg,
            tool_version=options.tool_version or DEFAULT_TOOL_VERSION,
            keep_images=options.keep_images,
            base_url=options.base_url,
        )

    return _computer_use("cu-anthropic", arg, options, backend)


def _cu_openai(arg: str, options: ComputerUseOptions) -> Agent:
    from endstate.agents.openai_cu_backend import OpenAIComputerBackend

    # No temperature: OpenAI's computer-use models, reasoning models, refuse one.
    def backend() -> OpenAIComputerBackend:
        return OpenAIComputerBackend(arg, base_url=options.base_url)

    return _computer_use("cu-openai", arg, options, backend)


NULL = register_agent(AgentKind("null", None, _null, "does nothing: the floor"))
REPLAY = register_agent(
    AgentKind(
        "replay",
        "FILE|DIR",
        _replay,
        "replays a trajectory, or DIR/<task id>.json (validation)",
        ActingOptions,
    )
)
TOOLS_REPLAY = register_agent(
    AgentKind(
        "tools-replay", "DIR", _tools_replay, "replays DIR/<task id>.json tool runs (validation)"
    )
)
LLM_TOOLS = register_agent(
    AgentKind(
        "llm-tools", "MODEL", _llm_tools, "a chat model calling a system's tools", ToolsModelOptions
    )
)
COMMAND = register_agent(
    AgentKind("command", "CMD", _command, "an external program, sandboxed", CommandOptions)
)
LLM = register_agent(
    AgentKind("llm", "MODEL", _llm, "a chat model over the accessibility tree", LLMOptions)
)
CU_CHAT = register_agent(
    AgentKind(
        "cu-chat",
        "MODEL",
        _cu_chat,
        "a vision chat model acting with mouse and keyboard (an OpenAI-compatible base_url)",
        ComputerUseOptions,
    )
)
CU_GEMINI = register_agent(
    AgentKind(
        "cu-gemini",
        "MODEL",
        _cu_gemini,
        "Gemini acting with mouse and keyboard (GEMINI_API_KEY)",
        ComputerUseOptions,
    )
)
CU_ANTHROPIC = register_agent(
    AgentKind(
        "cu-anthropic",
        "MODEL",
        _cu_anthropic,
        "a Claude model with Anthropic's computer tool",
        AnthropicComputerOptions,
    )
)
CU_OPENAI = register_agent(
    AgentKind(
        "cu-openai",
        "MODEL",
        _cu_openai,
        "an OpenAI computer-use model on screenshots",
        ComputerUseOptions,
    )
)

"""The agent contract: what an attempt hands an agent and what it may hand back.

What comes back is recorded (so false-success claims can be counted) and never scored:
scores come only from the end state the environment recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from endstate.agents.computer import Usage
from endstate.firewall import Projection
from endstate.manifest import EndpointCheck, Isolation
from endstate.records import SandboxFacts
from endstate.sandbox.spec import BrowserStorage

if TYPE_CHECKING:
    from playwright.async_api import Page

AgentClaim = Literal["done", "gave_up", "error", "timeout", "step_limit", "none"]


class TokenUsage(BaseModel):
    prompt: int = 0
    completion: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.completion


class AttemptContext(BaseModel):
    """Where one attempt happens. Holds nothing from the grading side by construction."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    projection: Projection
    start_urls: dict[str, str] = Field(
        default_factory=dict, description="Agent-facing URL of each system, bound to the episode."
    )
    max_steps: int = 50
    time_limit: float = Field(default=600.0, description="Wall-clock seconds for the attempt.")
    trace_dir: Path | None = None


class RunResources(BaseModel):
    """What an agent may prepare once per run: where it acts and what it must never see."""

    agent_urls: list[str] = Field(
        default_factory=list, description="The environment's agent-facing base URLs."
    )
    private_paths: list[Path] = Field(
        default_factory=list,
        description="Harness-only paths (corpus, run directory, caches, episode databases).",
    )
    private_urls: list[str] = Field(
        default_factory=list, description="Harness-only addresses (the grading channel)."
    )
    workers: int = 1
    attempts: int = Field(default=1, description="Attempts this run will make of the agent.")
    storage_origins: list[str] = Field(
        default_factory=list,
        description="Origins whose browser storage holds the end state (read from an agent's "
        "own browser after each attempt, before its sandbox is torn down).",
    )


class ActionRecord(BaseModel):
    """One step an agent took, as it took it: for traces, never for scoring."""

    step: int
    action: dict[str, Any]
    ok: bool
    result: str = ""
    at: float = Field(description="Seconds since the attempt started.")
    thought: str | None = Field(
        default=None, description="What the model said in the turn that asked for this action."
    )


class AgentOutcome(BaseModel):
    """The agent's own account of an attempt."""

    claim: AgentClaim = "none"
    final_message: str | None = None
    steps: int = 0
    error: str | None = None
    tokens: TokenUsage | None = None
    usage: Usage | None = Field(
        default=None, description="Model calls, tokens, images and retries, where a model ran."
    )
    model_failure: bool = Field(
        default=False,
        description="The model's calls kept failing (after every retry) and the attempt ended "
        "for it: the agent's failure if some call had succeeded; if none had, the runner "
        "records the attempt as lost to the model endpoint (unmeasurable).",
    )
    screens_saved: int | None = Field(default=None, description="Screenshots kept in the trace.")
    screens_dropped: int | None = Field(
        default=None, description="Screenshots not kept: the trace's size cap was reached."
    )
    actions: list[ActionRecord] = Field(default_factory=list)
    sandbox: SandboxFacts | None = None
    infrastructure_error: str | None = Field(
        default=None,
        description="The agent never got to act (e.g. its sandbox could not start): the "
        "attempt measured nothing and is unmeasurable, not failed.",
    )
    browser_storage: BrowserStorage | None = Field(
        default=None,
        description="localStorage of the agent's own browser per origin, read after it ended "
        "(RunResources.storage_origins); the end state of an environment that keeps it there.",
    )
    browser_storage_error: str | None = Field(
        default=None, description="Why the agent's browser storage could not be read."
    )
    output_problems: list[str] = Field(
        default_factory=list,
        description="What reading the agent's output had to refuse, cut or repair, each with "
        "its size (recorded in the attempt's facts; never a scoring input).",
    )


class Agent(Protocol):
    """A system under test. `scored` is False for validation agents such as replay.

    An agent that calls a model may also define `async def preflight(self) ->
    list[EndpointCheck]` (see `check_agent_endpoints`): the run calls it before anything
    starts, and an EndstateError it raises refuses the run."""

    kind: str
    name: str
    scored: bool
    uses_page: bool  # wants a harness page at the start URL (built-in browser agents)

    def config(self) -> dict[str, Any]:
        """The agent's identity and configuration, for the run manifest (no secrets)."""
        ...

    def isolation(self) -> Isolation:
        """How its attempts are contained, for the manifest and every report."""
        ...

    async def start(self, resources: RunResources) -> None:
        """Prepare once per run (sandboxes, gateways); raise EndstateError to refuse."""
        ...

    async def stop(self) -> None:
        """Release whatever `start` made."""
        ...

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        """Act on the environment. `page` is a fresh harness page already at the start URL."""
        ...


async def check_agent_endpoints(agent: Agent) -> list[EndpointCheck]:
    """The agent's model endpoints, checked (`endstate.endpoints`); none for an agent that
    declares no `preflight`."""
    check = getattr(agent, "preflight", None)
    return list(await check()) if check is not None else []


class InProcessAgent:
    """A built-in agent that runs inside the harness: nothing to sandbox, nothing to start.

    Its actions reach only the page it is handed (a context of the shared browser); its
    action vocabulary has no way to the browser's DevTools protocol or to the file system.
    """

    uses_page: bool = False

    def isolation(self) -> Isolation:
        return Isolation(mode="in-process", browser="shared" if self.uses_page else "none")

    async def start(self, resources: RunResources) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def preflight(self) -> list[EndpointCheck]:
        """Model endpoints it will call, checked before the run starts: none by default."""
        return []

"""The agent contract: what an attempt hands an agent and what it may hand back.

What comes back is recorded (so false-success claims can be counted) and never scored:
scores come only from the end state the environment recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from endstate.firewall import Projection

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
    cdp_endpoint: str | None = Field(
        default=None, description="The harness browser, for agents that drive it themselves."
    )
    max_steps: int = 50
    time_limit: float = Field(default=600.0, description="Wall-clock seconds for the attempt.")
    trace_dir: Path | None = None


class ActionRecord(BaseModel):
    """One step an agent took, as it took it: for traces, never for scoring."""

    step: int
    action: dict[str, Any]
    ok: bool
    result: str = ""
    at: float = Field(description="Seconds since the attempt started.")


class AgentOutcome(BaseModel):
    """The agent's own account of an attempt."""

    claim: AgentClaim = "none"
    final_message: str | None = None
    steps: int = 0
    error: str | None = None
    tokens: TokenUsage | None = None
    actions: list[ActionRecord] = Field(default_factory=list)


class Agent(Protocol):
    """A system under test. `scored` is False for validation agents such as replay."""

    kind: str
    name: str
    scored: bool
    uses_page: bool  # wants a harness page at the start URL (built-in browser agents)

    def config(self) -> dict[str, Any]:
        """The agent's identity and configuration, for the run manifest (no secrets)."""
        ...

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        """Act on the environment. `page` is a fresh harness page already at the start URL."""
        ...

"""The computer-use agent: any ComputerBackend, driven through screenshots and real input.

The loop is the same for every vendor: show the model the screen, perform the actions it
asks for in order, show it the next screen. It ends on Done or GiveUp, on a turn with no
actions (the model's words are its final message), at the step limit (each performed action
is a step, and so is an unreadable reply) or at the time limit. Every screen the model is
shown is kept in the trace, up to a size cap, so a reader sees what the model saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from endstate.agents.actions import Done, GiveUp
from endstate.agents.base import (
    ActionRecord,
    AgentClaim,
    AgentOutcome,
    AttemptContext,
    InProcessAgent,
    TokenUsage,
)
from endstate.agents.computer import (
    ActionOutcome,
    ComputerBackend,
    CoordAction,
    ModelTurn,
    Screen,
    Usage,
    Viewport,
)
from endstate.agents.coord_perform import perform_coord
from endstate.agents.cu_options import viewport_size
from endstate.agents.llm import PROMPT_MODES, REPLY_PREVIEW, PromptMode, task_message
from endstate.agents.model_calls import ModelCallFailed
from endstate.agents.observe import DEFAULT_SNAPSHOT_CHARS
from endstate.agents.perform import ActOptions
from endstate.agents.replay import time_budget
from endstate.agents.screen import OBSERVATIONS, Observation, take_screen
from endstate.endpoints import check_endpoint
from endstate.errors import EndstateError
from endstate.manifest import EndpointCheck

if TYPE_CHECKING:
    from playwright.async_api import Page

DEFAULT_SCREENS_CAP = 20_000_000  # bytes of screenshots kept per attempt


def parse_viewport(text: str) -> Viewport:
    """`--viewport 1280x800`; anything else is a one-line error."""
    try:
        return Viewport(*viewport_size(text))
    except ValueError as exc:
        raise EndstateError(f"--viewport {exc}") from None


def parse_observation(text: str) -> Observation:
    """`--observe`: what a computer-use model is shown each turn."""
    for known in OBSERVATIONS:
        if text == known:
            return known
    raise EndstateError(f"--observe {text!r}: expected one of {', '.join(OBSERVATIONS)}")


@dataclass
class ScreenArchive:
    """The screens of one attempt on disk, `screens/step-NNNN.png`, up to a byte cap."""

    directory: Path | None
    cap_bytes: int
    kept_bytes: int = 0
    saved: int = 0
    dropped: int = 0

    def keep(self, step: int, screen: Screen) -> None:
        if screen.png is None or self.directory is None:
            return
        if self.kept_bytes + len(screen.png) > self.cap_bytes:
            self.dropped += 1
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / f"step-{step:04d}.png").write_bytes(screen.png)
        self.kept_bytes += len(screen.png)
        self.saved += 1


@dataclass
class _Progress:
    """What an attempt has done so far, so any way of ending still reports it."""

    archive: ScreenArchive
    start: float = field(default_factory=time.monotonic)
    usage: Usage = field(default_factory=Usage)
    actions: list[ActionRecord] = field(default_factory=list)

    def elapsed(self) -> float:
        return round(time.monotonic() - self.start, 3)

    def record(self, action: dict[str, Any], ok: bool, result: str, thought: str | None) -> None:
        self.actions.append(
            ActionRecord(
                step=len(self.actions) + 1,
                action=action,
                ok=ok,
                result=result,
                at=self.elapsed(),
                thought=thought or None,
            )
        )

    def outcome(self, claim: AgentClaim, **extra: Any) -> AgentOutcome:
        return AgentOutcome(
            claim=claim,
            steps=len(self.actions),
            tokens=TokenUsage(prompt=self.usage.input_tokens, completion=self.usage.output_tokens),
            usage=Usage(**asdict(self.usage)),
            screens_saved=self.archive.saved,
            screens_dropped=self.archive.dropped,
            actions=list(self.actions),
            **extra,
        )


class ComputerUseAgent(InProcessAgent):
    """`cu-*:MODEL`: scored; one backend per attempt (a backend holds one conversation)."""

    scored = True
    uses_page = True

    def __init__(
        self,
        kind: str,
        make_backend: Callable[[], ComputerBackend],
        *,
        name: str,
        observation: Observation = "screenshot",
        prompt_mode: PromptMode = "task",
        marks: bool = False,
        viewport: Viewport | None = None,
        max_steps: int | None = None,
        screens_cap: int = DEFAULT_SCREENS_CAP,
        snapshot_chars: int = DEFAULT_SNAPSHOT_CHARS,
        options: ActOptions | None = None,
    ) -> None:
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation {observation!r}: expected one of {OBSERVATIONS}")
        self.kind = kind
        self.name = name
        self.make_backend = make_backend
        if prompt_mode not in PROMPT_MODES:
            raise ValueError(f"prompt mode {prompt_mode!r}: expected one of {PROMPT_MODES}")
        self.observation: Observation = observation
        self.prompt_mode: PromptMode = prompt_mode
        self.marks = marks
        self.viewport = viewport or Viewport()
        self.max_steps = max_steps
        self.screens_cap = screens_cap
        self.snapshot_chars = snapshot_chars
        self.options = options or ActOptions()
        self._probe = make_backend()  # for config() only: never begun, never called

    def config(self) -> dict[str, Any]:
        backend = self._probe.config()
        return {
            "kind": self.kind,
            "model": backend.get("model"),
            "backend": {"vendor": self._probe.vendor, **backend},
            "observation": self.observation,
            "prompt_mode": self.prompt_mode,
            "action_space": "coordinates",
            "marks": self.marks,
            "viewport": {"width": self.viewport.width, "height": self.viewport.height},
            "max_steps": self.max_steps,
            "screens_cap_bytes": self.screens_cap,
            "snapshot_chars": self.snapshot_chars,
        }

    async def preflight(self) -> list[EndpointCheck]:
        """The backend's endpoint, for a backend that names one (every built-in does)."""
        endpoint = getattr(self._probe, "endpoint", None)
        return [await check_endpoint(endpoint())] if endpoint is not None else []

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        screens = ctx.trace_dir / "screens" if ctx.trace_dir is not None else None
        progress = _Progress(ScreenArchive(screens, self.screens_cap))
        if page is None:
            return progress.outcome("error", error=f"the {self.kind} agent needs a browser page")
        backend = self.make_backend()
        try:
            async with asyncio.timeout(time_budget(ctx)):
                return await self._loop(backend, ctx, page, progress)
        except ModelCallFailed as exc:
            if exc.usage is not None:
                progress.usage.add(exc.usage)
            return progress.outcome("error", error=str(exc), model_failure=True)
        except TimeoutError:
            return progress.outcome("timeout", error=f"time limit {ctx.time_limit:g}s reached")
        except Exception as exc:  # an agent-level failure is an outcome, not a crash
            return progress.outcome("error", error=f"{type(exc).__name__}: {exc}")
        finally:
            with contextlib.suppress(Exception):
                await backend.close()

    def _step_limit(self, ctx: AttemptContext) -> int:
        return min(self.max_steps, ctx.max_steps) if self.max_steps else ctx.max_steps

    async def _look(self, page: Page, progress: _Progress) -> Screen:
        screen = await take_screen(
            page, self.viewport, self.observation, self.marks, self.snapshot_chars
        )
        progress.archive.keep(len(progress.actions), screen)
        return screen

    async def _loop(
        self, backend: ComputerBackend, ctx: AttemptContext, page: Page, progress: _Progress
    ) -> AgentOutcome:
        limit = self._step_limit(ctx)
        await page.set_viewport_size({"width": self.viewport.width, "height": self.viewport.height})
        screen = await self._look(page, progress)
        await backend.begin(task_message(ctx, self.prompt_mode), screen)
        outcomes: list[ActionOutcome] = []
        while True:
            try:
                turn = await backend.turn(outcomes, screen)
            except asyncio.CancelledError:  # the time limit cut the model call in flight
                progress.usage.add(Usage(calls=1, failed_calls=1))
                raise
            progress.usage.add(turn.usage)
            if turn.problem is not None:
                preview = {"invalid_reply": turn.text[:REPLY_PREVIEW]}
                progress.record(preview, False, turn.problem, None)
                outcomes = []
            elif not turn.actions:
                return progress.outcome("done", final_message=turn.text or None)
            else:
                ended, outcomes = await self._act(turn, page, progress, limit)
                if ended is not None:
                    return ended
            if len(progress.actions) >= limit:
                return progress.outcome("step_limit", error=f"step limit {limit} reached")
            screen = await self._look(page, progress)

    async def _act(
        self, turn: ModelTurn, page: Page, progress: _Progress, limit: int
    ) -> tuple[AgentOutcome | None, list[ActionOutcome]]:
        """Perform a turn's actions in order; an outcome when the attempt ends with them."""
        outcomes: list[ActionOutcome] = []
        thought: str | None = turn.text
        for call_id, action in turn.actions:
            if len(progress.actions) >= limit:
                break
            if isinstance(action, Done | GiveUp):
                progress.record(_dump(action), True, "", thought)
                claim: AgentClaim = "done" if isinstance(action, Done) else "gave_up"
                return progress.outcome(claim, final_message=action.message), outcomes
            result = await perform_coord(page, action, self.viewport, self.options)
            progress.record(_dump(action), result.ok, result.message, thought)
            outcomes.append(ActionOutcome(call_id, result.ok, result.message))
            thought = None  # the turn's words are kept once, with its first action
        return None, outcomes


def _dump(action: CoordAction) -> dict[str, Any]:
    return action.model_dump(exclude_none=True)

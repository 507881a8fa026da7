"""Replay: plays a recorded trajectory through real input, to validate tasks and environments.

A replay knows the answer in advance, so its runs are validation, never scored. It stops at
the first action that fails: a trajectory that no longer fits the pages is a finding, and
carrying on would only act on the wrong page.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from endstate.agents.actions import (
    ACTION_ADAPTER,
    Action,
    Done,
    GiveUp,
    Trajectory,
    TrajectoryError,
    describe_validation_error,
    dump_action,
    load_trajectory,
    save_trajectory,
)
from endstate.agents.base import (
    ActionRecord,
    AgentClaim,
    AgentOutcome,
    AttemptContext,
    InProcessAgent,
)
from endstate.agents.perform import ActionFailed, ActionResult, ActOptions, perform

if TYPE_CHECKING:
    from playwright.async_api import Page

__all__ = ["ReplayAgent", "TrajectoryRecorder", "load_trajectory", "save_trajectory"]


@contextlib.contextmanager
def attempt_downloads(base: ActOptions, ctx: AttemptContext) -> Iterator[Path]:
    """Where one attempt's downloads go: its trace folder, else a folder removed afterwards."""
    if base.download_dir is not None:
        yield base.download_dir
    elif ctx.trace_dir is not None:
        yield ctx.trace_dir / "downloads"
    else:
        with tempfile.TemporaryDirectory(prefix="endstate-downloads-") as tmp:
            yield Path(tmp)


def time_budget(ctx: AttemptContext) -> float:
    """Seconds the agent allows itself: a little under the runner's hard limit, so the agent
    ends on its own and hands back its account before the runner would cancel it."""
    return ctx.time_limit - min(1.0, ctx.time_limit * 0.05)


def action_record(step: int, action: Action, result: ActionResult, at: float) -> ActionRecord:
    return ActionRecord(
        step=step, action=dump_action(action), ok=result.ok, result=result.message, at=at
    )


class ReplayAgent(InProcessAgent):
    kind = "replay"
    scored = False
    uses_page = True

    def __init__(
        self, path: Path | str, *, options: ActOptions | None = None, name: str | None = None
    ) -> None:
        """A trajectory file plays for every task; a folder holds one `<task id>.json` each."""
        self.path = Path(path)
        files = sorted(self.path.glob("*.json")) if self.path.is_dir() else [self.path]
        if not files:
            raise TrajectoryError(f"{self.path}: no trajectories (<task id>.json) in the folder")
        self.trajectories: dict[str, Trajectory] = {f.stem: load_trajectory(f) for f in files}
        digest = hashlib.sha256()
        for f in files:
            digest.update(f"{f.name}\0".encode() + f.read_bytes())
        self.sha256 = digest.hexdigest()
        self.options = options or ActOptions()
        self.name = name or f"replay:{self.path.name}"

    @property
    def trajectory(self) -> Trajectory:
        """The one trajectory of a file replay."""
        (only,) = self.trajectories.values()
        return only

    def config(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "trajectory": str(self.path),
            "sha256": self.sha256,
            "actions": sum(len(t.actions) for t in self.trajectories.values()),
            "timeout_ms": self.options.timeout_ms,
        } | ({"tasks": sorted(self.trajectories)} if self.path.is_dir() else {})

    def _for(self, task_id: str) -> Trajectory | None:
        if not self.path.is_dir():
            return self.trajectory
        return self.trajectories.get(task_id)

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        if page is None:
            return AgentOutcome(claim="error", error="replay needs a browser page")
        trajectory = self._for(ctx.projection.task_id)
        if trajectory is None:
            return AgentOutcome(
                claim="error",
                error=f"no trajectory for task {ctx.projection.task_id} in {self.path}",
            )
        files = self.path if self.path.is_dir() else self.path.parent
        with attempt_downloads(self.options, ctx) as downloads:
            options = replace(
                self.options,
                download_dir=downloads,
                files_dir=self.options.files_dir or files,
            )
            return await self._play(ctx, page, options, trajectory)

    async def _play(
        self, ctx: AttemptContext, page: Page, options: ActOptions, trajectory: Trajectory
    ) -> AgentOutcome:
        start = time.monotonic()
        records: list[ActionRecord] = []

        def outcome(claim: AgentClaim, **extra: Any) -> AgentOutcome:
            return AgentOutcome(claim=claim, steps=len(records), actions=records, **extra)

        for step, action in enumerate(trajectory.actions, start=1):
            if step > ctx.max_steps:
                return outcome("step_limit", error=f"step limit {ctx.max_steps} reached")
            at = time.monotonic() - start
            remaining = time_budget(ctx) - at
            if remaining <= 0:
                return outcome("timeout", error=f"time limit {ctx.time_limit:g}s reached")
            try:
                result = await asyncio.wait_for(perform(page, action, options), remaining)
            except TimeoutError:
                result = ActionResult(False, "time limit reached during the action")
                records.append(action_record(step, action, result, at))
                return outcome("timeout", error=f"time limit {ctx.time_limit:g}s reached")
            except Exception as exc:  # an agent-level failure is an outcome, not a crash
                result = ActionResult(False, f"{type(exc).__name__}: {exc}")
                records.append(action_record(step, action, result, at))
                return outcome("error", error=f"step {step} ({action.type}): {result.message}")
            records.append(action_record(step, action, result, at))
            if not result.ok:
                return outcome("error", error=f"step {step} ({action.type}): {result.message}")
            if isinstance(action, Done):
                return outcome("done", final_message=action.message)
            if isinstance(action, GiveUp):
                return outcome("gave_up", final_message=action.message)
        return outcome("none")


class TrajectoryRecorder:
    """A scripted recording session: each action is performed, and kept only if it worked.

    Recording by doing guarantees a saved trajectory has replayed at least once.
    """

    def __init__(self, page: Page, options: ActOptions | None = None) -> None:
        self.page = page
        self.options = options or ActOptions()
        self.actions: list[Action] = []

    async def do(self, action: Action | dict[str, Any], *, strict: bool = True) -> ActionResult:
        """Perform and record one action; with `strict`, a failure raises ActionFailed."""
        if isinstance(action, dict):
            try:
                action = ACTION_ADAPTER.validate_python(action)
            except ValidationError as exc:
                raise ActionFailed(describe_validation_error(exc)) from None
        result = await perform(self.page, action, self.options)
        if result.ok:
            self.actions.append(action)
        elif strict:
            raise ActionFailed(result.message)
        return result

    def save(self, path: Path | str, description: str | None = None) -> Path:
        return save_trajectory(self.actions, path, description)

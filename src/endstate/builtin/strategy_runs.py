"""Play the trivial strategies on tasks, each on a fresh episode, and score what they leave."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from endstate.builtin.strategies import STRATEGIES, strategy_steps
from endstate.builtin.templates.common import WorldView
from endstate.builtin.validation import MUTATION_TIMEOUT_MS, Validator, per_world
from endstate.builtin.validation_results import Attempt
from endstate.corpus.model import Task
from endstate.errors import EndstateError


@dataclass(frozen=True)
class StrategyResult:
    task_id: str
    template_id: str
    tier: str
    strategy: str
    attempt: Attempt

    @property
    def passed(self) -> bool:
        """Full credit on every deterministic check (a played-out strategy that stopped early
        still counts by what it left)."""
        return self.attempt.error is None and not self.attempt.failed


async def run_strategies(
    tasks: Sequence[Task], strategies: Sequence[str] = STRATEGIES, workers: int = 2
) -> list[StrategyResult]:
    from endstate.browser import async_browser

    results: list[StrategyResult] = []
    refused: list[str] = []
    gate = asyncio.Semaphore(max(1, workers))

    async def one(validator: Validator, view: WorldView, task: Task, strategy: str) -> None:
        steps = strategy_steps(view, task, strategy)
        async with gate:
            attempt, _ = await validator.attempt(task, strategy, steps or None, MUTATION_TIMEOUT_MS)
        template = str(task.grading.extra.get("template_id", ""))
        results.append(StrategyResult(task.id, template, task.tier, strategy, attempt))

    async with async_browser() as browser:
        async for fitting, env in per_world(tasks, lambda t, why: refused.append(f"{t.id}: {why}")):
            validator = Validator(env, browser, workers)
            view = WorldView(env.suite.world)
            await asyncio.gather(*(one(validator, view, t, s) for t in fitting for s in strategies))
    if refused:
        raise EndstateError("cannot play strategies on: " + "; ".join(refused))
    order = {(t.id, s): i for i, (t, s) in enumerate((t, s) for t in tasks for s in strategies)}
    return sorted(results, key=lambda r: order[(r.task_id, r.strategy)])

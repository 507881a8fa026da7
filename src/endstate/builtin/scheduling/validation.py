"""Prove each scheduling case meets its oracle and can fail it, before anyone is scored on it.

On fresh episodes of the world the case names, over the service's real HTTP tools:

1. the reference run meets every check (its writes are never refused);
2. the null run (the episode as set up, nobody acting) fails at least one check;
3. each forbidden effect's violating run fails that effect's own check;

and, before any replay, the case's words pass the audit (`audit.case_problems`): no blank
or unfilled text, every time it names is one of its slots', a disambiguation that needs one.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from endstate.agents.tool_client import ToolClient
from endstate.builtin.scheduling.audit import case_problems
from endstate.corpus.model import Task
from endstate.runs.embedded import EmbeddedEnvironment
from endstate.runs.environment import open_task_episode
from endstate.scoring.task_score import score_task

SYSTEM = "scheduling"


@dataclass
class CaseRun:
    label: str
    failed: list[str] = field(default_factory=list)  # categories of checks that did not pass
    error: str | None = None


@dataclass
class CaseValidation:
    task_id: str
    family: str
    reference: CaseRun | None = None
    null: CaseRun | None = None
    violations: list[tuple[str, CaseRun]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def uncaught(self) -> list[str]:
        return [
            effect
            for effect, run in self.violations
            if run.error is not None or f"forbidden:{effect}" not in run.failed
        ]

    @property
    def ok(self) -> bool:
        r, n = self.reference, self.null
        return (
            not self.problems
            and r is not None
            and r.error is None
            and not r.failed
            and n is not None
            and n.error is None
            and bool(n.failed)
            and not self.uncaught()
        )

    def reasons(self) -> list[str]:
        out = list(self.problems)
        r, n = self.reference, self.null
        if r is not None and (r.error or r.failed):
            out.append(f"reference: {r.error or 'fails ' + ', '.join(r.failed)}")
        if n is not None and (n.error or not n.failed):
            out.append(f"null: {n.error or 'passes every check'}")
        out += [f"violation of {effect} is not caught" for effect in self.uncaught()]
        return out


async def replay(
    env: EmbeddedEnvironment,
    task: Task,
    label: str,
    calls: Sequence[dict[str, Any]],
    answer: dict[str, Any] | None = None,
    strict: bool = False,
) -> CaseRun:
    """One run on a fresh episode; `strict`: a refused call is an error (the reference's)."""
    run = CaseRun(label)
    try:
        episode = await open_task_episode(env, task, f"validate:{task.id}:{label}")
    except Exception as exc:
        run.error = f"episode could not open: {exc}"
        return run
    try:
        if calls:
            async with ToolClient(episode.start_urls[SYSTEM]) as client:
                for i, call in enumerate(calls):
                    got = await client.call(
                        call["tool"], call.get("arguments", {}), call.get("key")
                    )
                    if strict and got.get("status") == "refused":
                        run.error = f"step {i} ({call['tool']}) refused: {got.get('message')}"
                        return run
        state = await env.read_state(episode, None)
        message = json.dumps(answer) if answer is not None else None
        record = score_task(task, state, label, final_message=message)
        run.failed = [v.category or v.description for v in record.checks if v.outcome != "pass"]
    except Exception as exc:
        run.error = f"{type(exc).__name__}: {exc}"
    finally:
        await env.close_episode(episode)
    return run


def _given(value: Any) -> Any:
    """`value` without the nulls the loader fills in for fields a card left out."""
    if isinstance(value, dict):
        return {k: _given(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_given(v) for v in value]
    return value


def card_of(task: Task) -> dict[str, Any]:
    """The case card's fields again, as the loader split them between the public task, the
    episode setup and the grading side."""
    setup = dict((task.episode_setup or {}).get(SYSTEM, {}))
    public = task.public
    card = {
        "case_id": task.id,
        "family": task.family,
        "instruction": public.instruction,
        "answer_fields": [f.model_dump() for f in public.answer_fields],
        "connector": setup.pop("connector", "ok"),
        "user": setup.pop("user", {}),
        "initial": setup,
        **task.grading.extra,
    }
    return dict(_given(card))


async def validate_case(env: EmbeddedEnvironment, task: Task) -> CaseValidation:
    extra = task.grading.extra
    found = CaseValidation(task.id, task.family, problems=case_problems(card_of(task)))
    found.reference = await replay(
        env, task, "reference", extra["reference"], extra.get("reference_answer"), strict=True
    )
    found.null = await replay(env, task, "null", [])
    for i, f in enumerate(extra.get("forbidden", [])):
        run = await replay(
            env, task, f"violation-{i}", f["violation"], extra.get("reference_answer")
        )
        found.violations.append((f["effect"], run))
    return found


async def validate_cases(
    tasks: Sequence[Task],
    workers: int = 2,
    on_done: Callable[[CaseValidation], None] | None = None,
) -> list[CaseValidation]:
    """Validate cases, one embedded suite per world they name, `workers` cases at a time."""
    from endstate.envs.server import EmbeddedSuite

    by_world: dict[tuple[int, str], list[Task]] = {}
    for task in tasks:
        world = task.grading.extra["world"]
        by_world.setdefault((int(world["seed"]), str(world["clock"])), []).append(task)
    out: dict[str, CaseValidation] = {}
    for (seed, clock), group in sorted(by_world.items()):
        suite = await asyncio.to_thread(EmbeddedSuite.start, seed, clock=clock)
        env = EmbeddedEnvironment(suite, run_seed=0)
        try:
            await _each(env, list(group), workers, out, on_done)
        finally:
            await env.aclose()
    return [out[t.id] for t in tasks]


async def _each(
    env: EmbeddedEnvironment,
    queue: list[Task],
    workers: int,
    out: dict[str, CaseValidation],
    on_done: Callable[[CaseValidation], None] | None,
) -> None:
    async def worker() -> None:
        while queue:
            task = queue.pop(0)
            out[task.id] = done = await validate_case(env, task)
            if on_done is not None:
                on_done(done)

    await asyncio.gather(*(worker() for _ in range(max(1, workers))))

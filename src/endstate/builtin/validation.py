"""Prove each generated task solvable and discriminating before anyone is scored on it.

For every task, on fresh episodes of the world it was made for, through a real browser:

1. the reference trajectory earns every deterministic point (rubric checks need a judge and
   are reported as ungraded);
2. the null attempt (the start page, then nothing) does not pass;
3. every mutation of the reference (each consequential step dropped; the look-alike record,
   the decoy document, the wrong value or action where the template defines one) fails at
   least one deterministic check — so each check is shown able to fail for its reason;
4. the answer key agrees with what the audit derives from the world and the payer rules,
   and the reference's end state embodies that outcome (`endstate.builtin.audit`): a task
   whose checks, key and rules drift apart fails.

One browser and one suite serve everything; each attempt has its own episode and context.
A mutation that only drops the last write is not replayed: every step after that write in
the reference is read-only, so its end state is the reference's state just before that
write, which the reference attempt reads as it passes. Nor is one that only rewrites the
closing done step (an errand's wrong answer): it acts as the reference does, so it is scored
on the reference's end state with its own final message.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

from endstate import firewall
from endstate.agents.perform import ActOptions
from endstate.builtin.audit import TaskAudit, audit_task, audited, embodied
from endstate.builtin.trajectory import PlayResult, StepError, apply_edits, play
from endstate.builtin.validation_results import (
    Attempt,
    MutationResult,
    Progress,
    TaskValidation,
    drop_only,
    scored,
)
from endstate.corpus.model import Task
from endstate.envs.world import World
from endstate.runs.environment import open_task_episode
from endstate.scoring.task_score import score_task

REFERENCE_TIMEOUT_MS = 5000.0
MUTATION_TIMEOUT_MS = 2500.0  # a mutant that cannot go on should stop soon
# A result that would fail the task is confirmed once more before it counts: a step that
# timed out on a loaded machine must not pass for a finding about the task.
CONFIRM_TIMEOUT_MS = REFERENCE_TIMEOUT_MS * 2


class Validator:
    """Runs validation attempts on one environment with one browser, `workers` at a time."""

    def __init__(
        self,
        env: Any,
        browser: Any,
        workers: int,
        replay: Callable[[Task], bool] | None = None,
        world: World | None = None,
    ) -> None:
        self.env = env
        self.browser = browser
        self.workers = max(1, workers)
        self.replay = replay  # None: replay every task's replayed mutants
        self.world = world  # the tasks' world: given, each answer key is audited against it
        self.audits: dict[str, TaskAudit] = {}

    def audit(self, task: Task, v: TaskValidation) -> None:
        """The static audit: the task's answer key against the world and the rules. A task that
        states no key (a template from outside endstate may not) is left unaudited."""
        if self.world is None or not audited(task):
            return
        found = audit_task(task, self.world)
        if not found.keyed:  # nothing claimed, nothing to disagree with: shown, not failed
            v.unkeyed = True
            return
        self.audits[task.id] = found
        v.audited = True
        v.audit += [f.line() for f in found.findings]

    def embodies(self, task: Task, v: TaskValidation, state: dict[str, Any] | None) -> None:
        """Whether the reference's end state carries out the outcome the audit derived."""
        found = self.audits.get(task.id)
        if found is None or not found.outcomes or state is None or not v.solvable:
            return
        lines = [f.line() for f in embodied(task.id, found.key, found.outcomes, state)]
        v.audit += [f"reference end state: {line}" for line in lines]

    async def attempt(
        self,
        task: Task,
        label: str,
        steps: Sequence[dict[str, Any]] | None,
        timeout_ms: float,
        checkpoint: int | None = None,
        ended: dict[str, Any] | None = None,
    ) -> tuple[Attempt, dict[str, Any] | None]:
        """One attempt on a fresh episode; with `checkpoint`, also the state before that step;
        with `ended`, its end state is kept there under "state"."""
        began = time.monotonic()
        try:
            episode = await open_task_episode(self.env, task, f"validate:{task.id}")
        except Exception as exc:
            return Attempt(label, None, error=f"episode could not open: {exc}"), None
        context = None
        snapshot: dict[str, Any] = {}
        try:
            context = await self.browser.new_context(accept_downloads=True)
            page = await context.new_page()
            start = firewall.project(task, episode.binding).start_url
            if start:
                with contextlib.suppress(Exception):
                    await page.goto(start, wait_until="load", timeout=30_000)
            played: PlayResult | None = None
            if steps is not None:
                with tempfile.TemporaryDirectory(prefix="endstate-validate-") as tmp:
                    options = ActOptions(
                        timeout_ms=timeout_ms,
                        download_dir=Path(tmp),
                        files_dir=Path(tmp),
                        upload_roots=(Path(tmp),),
                    )

                    async def take() -> None:
                        snapshot["state"] = await self.env.read_state(episode, page)

                    played = await play(page, steps, options, checkpoint, take)
            state = await self.env.read_state(episode, page)
            if ended is not None:
                ended["state"] = state
            answer = played.message if played is not None else None
            record = score_task(task, state, label, final_message=answer)
            result = scored(label, played, record)
        except Exception as exc:
            result = Attempt(label, None, error=f"{type(exc).__name__}: {exc}")
        finally:
            if context is not None:
                with contextlib.suppress(Exception):
                    await context.close()
            with contextlib.suppress(Exception):
                await self.env.close_episode(episode)
        result.seconds = round(time.monotonic() - began, 3)
        return result, snapshot.get("state")

    async def _reference(
        self, task: Task, steps: Sequence[dict[str, Any]], checkpoint: int | None
    ) -> tuple[Attempt, dict[str, Any] | None, dict[str, Any] | None, bool]:
        """The reference attempt (confirmed once more if it fails), the state before its last
        write, its end state, and whether it was retried."""
        ended: dict[str, Any] = {}
        attempt, before = await self.attempt(
            task, "reference", steps, REFERENCE_TIMEOUT_MS, checkpoint, ended
        )
        played = attempt.played
        if attempt.error is None and played is not None and played.ok and not attempt.failed:
            return attempt, before, ended.get("state"), False
        ended.clear()
        attempt, before = await self.attempt(
            task, "reference", steps, CONFIRM_TIMEOUT_MS, checkpoint, ended
        )
        return attempt, before, ended.get("state"), True

    def _from_state(
        self, task: Task, label: str, state: dict[str, Any] | None, answer: str | None
    ) -> Attempt:
        """A prefix of the reference, scored from the state before its last write (it still
        ends with the reference's answer, as its trajectory does)."""
        if state is None:
            return Attempt(label, None, error="the reference never reached this step")
        return scored(label, None, score_task(task, state, label, final_message=answer))

    async def validate(
        self, tasks: Sequence[Task], on_done: Progress | None = None
    ) -> list[TaskValidation]:
        """Validate every task; attempts of all tasks share the worker pool."""
        results = {t.id: _shell(t) for t in tasks}
        for task in tasks:
            self.audit(task, results[task.id])
        jobs: asyncio.Queue[Callable[[], Any]] = asyncio.Queue()
        pending = {t.id: 0 for t in tasks}

        def finish(task_id: str) -> None:
            pending[task_id] -= 1
            if pending[task_id] == 0 and on_done is not None:
                on_done(results[task_id])

        planned: list[tuple[int, int, Callable[[], Any]]] = []
        for task in tasks:
            v = results[task.id]
            jobs_for = [] if v.problems else self._jobs(task, v, finish)
            if v.problems:  # a task that cannot be attempted is reported at once
                if on_done is not None:
                    on_done(v)
                continue
            size = len(task.grading.extra["reference"]["steps"])
            for job in jobs_for:
                pending[task.id] += 1
                planned.append((size, len(planned), job))
        # Longest trajectories first, so the last attempts to finish are short ones.
        for _, _, job in sorted(planned, key=lambda p: (-p[0], p[1])):
            jobs.put_nowait(job)

        async def worker() -> None:
            while True:
                try:
                    job = jobs.get_nowait()
                except asyncio.QueueEmpty:
                    return
                await job()

        await asyncio.gather(*(worker() for _ in range(self.workers)))
        return [results[t.id] for t in tasks]

    def _jobs(
        self, task: Task, v: TaskValidation, finish: Callable[[str], None]
    ) -> list[Callable[[], Any]]:
        extra = task.grading.extra
        reference = extra["reference"]
        steps: list[dict[str, Any]] = list(reference["steps"])
        writes: list[int] = list(reference.get("consequential") or [])
        last = max(writes) if writes else None
        prefix_mutations: list[dict[str, Any]] = []
        replayed: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        answer_only: list[tuple[dict[str, Any], str | None]] = []
        for m in extra.get("mutations") or []:
            if last is not None and drop_only(m["edits"]) == last:
                prefix_mutations.append(m)
                continue
            message = _answer_only(steps, m["edits"])
            if message is not False:
                answer_only.append((m, message))
                continue
            try:
                replayed.append((m, apply_edits(steps, m["edits"])))
            except (StepError, KeyError, ValueError) as exc:
                v.problems.append(f"mutation {m.get('id')}: {exc}")

        async def run_reference() -> None:
            checkpoint = last if prefix_mutations else None
            v.reference, before, after, retried = await self._reference(task, steps, checkpoint)
            if retried:
                v.retried.append("reference")
            self.embodies(task, v, after)
            for m, message in answer_only:
                v.mutations.append(
                    MutationResult(
                        m["id"],
                        m.get("kind", ""),
                        m.get("why", ""),
                        self._from_state(task, m["id"], after, message),
                    )
                )
            for m in prefix_mutations:
                v.mutations.append(
                    MutationResult(
                        m["id"],
                        m.get("kind", ""),
                        m.get("why", ""),
                        self._from_state(task, m["id"], before, _answer(v.reference)),
                    )
                )
            finish(task.id)

        async def run_null() -> None:
            v.null, _ = await self.attempt(task, "null", None, MUTATION_TIMEOUT_MS)
            finish(task.id)

        def mutant(m: dict[str, Any], mutated: list[dict[str, Any]]) -> Callable[[], Any]:
            async def run() -> None:
                result, _ = await self.attempt(task, m["id"], mutated, MUTATION_TIMEOUT_MS)
                if not result.fails_a_check:
                    result, _ = await self.attempt(task, m["id"], mutated, CONFIRM_TIMEOUT_MS)
                    v.retried.append(m["id"])
                v.mutations.append(
                    MutationResult(m["id"], m.get("kind", ""), m.get("why", ""), result)
                )
                finish(task.id)

            return run

        if self.replay is not None and not self.replay(task):
            v.not_replayed = [m["id"] for m, _ in replayed]
            replayed = []
        return [run_reference, run_null, *(mutant(m, s) for m, s in replayed)]


def _answer_only(steps: Sequence[dict[str, Any]], edits: Sequence[dict[str, Any]]) -> Any:
    """The new final message of a mutation that only rewrites the reference's closing done
    step, else False. Such a mutant acts exactly as the reference does, so it is scored on the
    reference's end state with its own message instead of being replayed."""
    if len(edits) != 1 or not steps or steps[-1].get("type") != "done":
        return False
    edit = edits[0]
    step = edit.get("step")
    if edit.get("op") != "replace" or edit.get("at") != len(steps) - 1:
        return False
    if not isinstance(step, dict) or step.get("type") not in ("done", "give_up"):
        return False
    message = step.get("message")
    return message if isinstance(message, str) else None


def _answer(attempt: Attempt | None) -> str | None:
    return attempt.played.message if attempt is not None and attempt.played else None


def _shell(task: Task) -> TaskValidation:
    extra = task.grading.extra
    v = TaskValidation(
        task_id=task.id,
        template_id=str(extra.get("template_id") or "—"),
        family=task.family,
        tier=task.tier,
        checks=len(task.grading.checks),
    )
    if not extra.get("reference"):
        v.problems.append("no reference trajectory (only native tasks can be validated)")
    verdict = firewall.verify(task)
    if verdict.status != "verified":
        v.problems.append(f"firewall: {verdict.reason}")
    return v


def _drift(pin: dict[str, Any], world: Any) -> str | None:
    """Why a task's world pin no longer matches the world its seed makes, if it does not."""
    pinned = pin.get("sha256")
    if pinned != world.sha256:
        return (
            f"world drift: task pins {str(pinned)[:12]}, the generator now "
            f"makes {world.sha256[:12]} for seed {world.seed}"
        )
    people = pin.get("population_sha256")
    if people is not None:
        from endstate.builtin.errands.generator import population_sha256_for

        now = population_sha256_for(world.seed, world.clock)
        if people != now:
            return (
                f"population drift: task pins the portal's patients {str(people)[:12]}, "
                f"the generator now makes {now[:12]} for seed {world.seed}"
            )
    return None


def world_seed(task: Task) -> int | None:
    world = task.grading.extra.get("world")
    return int(world["seed"]) if isinstance(world, dict) and "seed" in world else None


async def per_world(
    tasks: Sequence[Task], reject: Callable[[Task, str], None]
) -> AsyncIterator[tuple[list[Task], Any]]:
    """(tasks, environment) for each world the tasks were made for, one embedded suite at a
    time; a task with no world pin, or whose world drifted, goes to `reject` with the reason."""
    from endstate.envs.server import EmbeddedSuite
    from endstate.runs.embedded import EmbeddedEnvironment

    by_world: dict[tuple[int, str], list[Task]] = {}
    for task in tasks:
        world = task.grading.extra.get("world")
        if not isinstance(world, dict):
            reject(task, "no world pin")
            continue
        by_world.setdefault((int(world["seed"]), str(world["clock"])), []).append(task)
    for (seed, clock), group in sorted(by_world.items()):
        suite = await asyncio.to_thread(EmbeddedSuite.start, seed, clock=clock)
        env = EmbeddedEnvironment(suite, run_seed=0)
        try:
            fitting: list[Task] = []
            for task in group:
                drift = _drift(task.grading.extra["world"], suite.world)
                if drift:
                    reject(task, drift)
                else:
                    fitting.append(task)
            yield fitting, env
        finally:
            await env.aclose()


async def validate_tasks(
    tasks: Sequence[Task],
    workers: int = 2,
    on_done: Progress | None = None,
    replay: Callable[[Task], bool] | None = None,
) -> list[TaskValidation]:
    """Validate tasks, starting one embedded suite per world the tasks were made for.

    `replay` says which tasks' mutants that must be replayed are (default: every task's);
    the reference, the null attempt and the mutants scored without replay always run."""
    from endstate.browser import async_browser

    out: dict[str, TaskValidation] = {}

    def reject(task: Task, why: str) -> None:
        v = _shell(task)
        v.problems.append(why)
        out[task.id] = v
        if on_done:
            on_done(v)

    async with async_browser() as browser:
        async for fitting, env in per_world(tasks, reject):
            validator = Validator(env, browser, workers, replay, world=env.suite.world)
            for v in await validator.validate(fitting, on_done):
                out[v.task_id] = v
    return [out[t.id] for t in tasks]

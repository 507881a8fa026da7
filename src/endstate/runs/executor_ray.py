"""`endstate run --executor ray`: the driver side.

Ray is started (or joined) once per run. Each of `--workers` slots holds one actor of
`ray_worker.AttemptWorker` that declares its resources, rebuilds the run's environment and
agent on its node and verifies the run's pins before taking work. The driver hands attempts out
one at a time and alone writes the run directory: each shipped record and its traces, each
record appended once. A worker lost mid-attempt (killed, node gone, no answer) costs no
attempt: it goes back to the queue for another worker, up to `ATTEMPT_RETRIES` times, and is
then recorded unmeasurable with an `executor` infrastructure fault. A lost worker's slot gets
a replacement, up to `SLOT_REPLACEMENTS` times.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from endstate.corpus.model import Task
from endstate.errors import EndstateError
from endstate.manifest import Manifest
from endstate.records import InfrastructureFault, TaskRecord
from endstate.runs.executors import RaySettings, is_loopback
from endstate.runs.ray_journal import RayJournal, WorkerEntry
from endstate.runs.runner import RunPlan
from endstate.runs.store import RunStore
from endstate.runs.work_queue import Pair, WorkQueue
from endstate.runs.worker_pins import (
    ShippedAttempt,
    WorkerReady,
    WorkerSpec,
    package_relative,
    run_pins,
    unpack_traces,
)
from endstate.scoring.judge import Judge
from endstate.scoring.task_score import score_task, unmeasurable
from endstate.scratch import sweep

ATTEMPT_RETRIES = 2  # tries after the first, each on another worker
SLOT_REPLACEMENTS = 3  # new workers per slot after its first was lost
START_TIMEOUT = 180.0  # seconds for a worker to be placed, start its environment and answer
ATTEMPT_GRACE = 120.0  # seconds past the attempt's own limit before its worker counts as lost
STOP_TIMEOUT = 30.0
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": Ray keeps to 127.0.0.1
AUTH_MODE_ENV = "RAY_AUTH_MODE"
OBJECT_STORE_BYTES = 512 * 2**20  # a local instance's object store: traces are small


@contextmanager
def ray_started(settings: RaySettings, workers: int) -> Iterator[Any]:
    """Ray for this run: a new local instance on loopback, or the cluster at `address`."""
    if is_loopback(settings.address):
        os.environ[LOOPBACK_ENV] = "0"  # read when ray is imported: before that
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if settings.address is None and AUTH_MODE_ENV not in os.environ:
        # Ray would protect a new local instance with a token saved in ~/.ray, which later
        # clusters then pick up; a token of this process's own, inherited by the instance's
        # processes, protects it the same and leaves nothing behind.
        os.environ[AUTH_MODE_ENV] = "token"
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    import ray

    common: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    temp: str | None = None
    try:
        if settings.address is None:
            # Directly in the temporary folder, not a scratch folder: Ray's session sockets
            # live under it, and a socket path may not exceed 107 bytes.
            temp = tempfile.mkdtemp(prefix="endstate-ray-")
            cpus = max(os.cpu_count() or 1, math.ceil(workers * settings.cpus_per_worker))
            ray.init(
                address="local",
                num_cpus=cpus,
                include_dashboard=False,
                object_store_memory=OBJECT_STORE_BYTES,
                _node_ip_address="127.0.0.1",
                _temp_dir=temp,
                **common,
            )
        else:
            if is_loopback(settings.address):
                common["_node_ip_address"] = "127.0.0.1"
            ray.init(address=settings.address, **common)
    except Exception as exc:
        if temp:
            shutil.rmtree(temp, ignore_errors=True)
        where = f"--ray-address {settings.address}" if settings.address else "--executor ray"
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise EndstateError(f"{where}: Ray did not start: {first}") from None
    try:
        yield ray
    finally:
        ray.shutdown()
        if temp:
            shutil.rmtree(temp, ignore_errors=True)


def _lost_errors(ray: Any) -> tuple[type[BaseException], ...]:
    """Errors that mean the worker (its process or node) is gone, not that the attempt failed."""
    e = ray.exceptions
    return (
        e.RayActorError,
        e.WorkerCrashedError,
        e.NodeDiedError,
        e.ObjectLostError,
        e.OutOfMemoryError,
        e.LocalRayletDiedError,
        TimeoutError,
    )


class RayExecution:
    """One run's attempts on Ray: the slots, the queue, and the driver's writes."""

    def __init__(
        self,
        ray: Any,
        plan: RunPlan,
        store: RunStore,
        manifest: Manifest,
        spec: WorkerSpec,
        settings: RaySettings,
        judge: Judge | None,
        on_record: Callable[[TaskRecord], None] | None,
    ) -> None:
        from endstate.runs.ray_worker import AttemptWorker

        self.ray = ray
        self.plan = plan
        self.store = store
        self.spec = spec
        self.settings = settings
        self.judge = judge
        self.on_record = on_record
        self.tasks: dict[str, Task] = {t.id: t for t in plan.tasks}
        self.journal = RayJournal(store, manifest, settings.address, _env_names(settings))
        self.actor_class = ray.remote(AttemptWorker)
        self.lost_errors = _lost_errors(ray)
        self.attempt_timeout = plan.time_limit + 5 + ATTEMPT_GRACE

    async def run(self, pending: list[Pair]) -> Manifest:
        queue = WorkQueue(pending, ATTEMPT_RETRIES)
        began = time.monotonic()
        try:
            async with asyncio.TaskGroup() as group:  # a failing slot stops the others
                for slot in range(1, self.plan.workers + 1):
                    group.create_task(self._slot(slot, queue))
        except BaseExceptionGroup as failed:
            self.journal.interrupted(_one_line(failed.exceptions[0]))
            raise failed.exceptions[0] from None
        except BaseException as stopped:  # Ctrl-C: the run can be resumed
            self.journal.interrupted(_one_line(stopped) or type(stopped).__name__)
            raise
        self.journal.timings["attempts_seconds"] = round(time.monotonic() - began, 3)
        self.journal.write()
        left = queue.pending
        if left and not self.journal.use.workers_ready:
            raise EndstateError(
                f"no Ray worker took work, nothing was scored: {self.journal.first_refusal()} "
                f"(see {self.store.root / 'executor.json'})"
            )
        if left:
            raise EndstateError(
                f"every Ray worker was lost: {len(left)} attempt(s) not run; resume with: "
                f"endstate run --resume {self.store.root}"
            )
        return self.journal.manifest

    async def _slot(self, slot: int, queue: WorkQueue) -> None:
        """Keep one worker at work in this slot until the queue is drained."""
        for generation in range(SLOT_REPLACEMENTS + 1):
            if queue.drained.is_set():
                return
            started = await self._start(slot, generation, queue)
            if started is None:
                return
            actor, entry = started
            if not await self._work(actor, entry, queue):
                await self._stop(actor, entry)
                return

    async def _start(
        self, slot: int, generation: int, queue: WorkQueue
    ) -> tuple[Any, WorkerEntry] | None:
        """A new worker in the slot, placed and verified; None if it refused or never started."""
        env = self.settings.env_for(slot)
        actor = self.actor_class.options(
            num_cpus=self.settings.cpus_per_worker,
            memory=int(self.settings.memory_per_worker_gb * 2**30),
            scheduling_strategy="SPREAD",
            max_restarts=0,
            max_task_retries=0,
            runtime_env={"env_vars": env} if env else None,
        ).remote()
        entry = self.journal.starting(slot, generation, actor._actor_id.hex())
        spec = replace(self.spec, slot=slot)
        answer = asyncio.ensure_future(self._call(actor.start.remote(spec)))
        drained = asyncio.ensure_future(queue.drained.wait())
        done, _ = await asyncio.wait(
            {answer, drained}, timeout=START_TIMEOUT, return_when=asyncio.FIRST_COMPLETED
        )
        drained.cancel()
        if answer not in done:
            answer.cancel()
            why = "not needed any more" if drained in done else "not started within the limit"
            self.journal.unstarted(entry, f"{why} ({START_TIMEOUT:g}s)")
            self._kill(actor)
            return None
        try:
            ready: WorkerReady = answer.result()
        except Exception as exc:
            self.journal.unstarted(entry, _one_line(exc))
            self._kill(actor)
            return None
        self.journal.answered(entry, ready)
        if ready.refused:
            self._kill(actor)
            return None
        if generation == 0 and "first_ready_seconds" not in self.journal.timings:
            self.journal.timings["first_ready_seconds"] = ready.seconds
        return actor, entry

    async def _work(self, actor: Any, entry: WorkerEntry, queue: WorkQueue) -> bool:
        """Run attempts on the worker until none are left (False) or it is lost (True)."""
        while (pair := await queue.take()) is not None:
            try:
                shipped: ShippedAttempt = await asyncio.wait_for(
                    self._call(actor.attempt.remote(*pair)), self.attempt_timeout
                )
            except self.lost_errors as exc:
                error = (
                    f"no answer within {self.attempt_timeout:g}s"
                    if isinstance(exc, TimeoutError)
                    else _one_line(exc)
                )
                self.journal.worker_lost(entry, error)
                self._kill(actor)
                if await queue.worker_lost(pair):
                    self.journal.attempt_retried(pair, entry, error)
                else:
                    await self._record_lost(pair, entry, error)
                return True
            except BaseException:
                await queue.give_back(pair)
                raise
            await self._accept(entry, pair, shipped)
            entry.attempts += 1
            await queue.finished(pair)
        return False

    async def _call(self, ref: Any) -> Any:
        return await asyncio.wrap_future(ref.future())

    async def _accept(self, entry: WorkerEntry, pair: Pair, shipped: ShippedAttempt) -> None:
        """Write a worker's attempt into the run: traces first, then its one record."""
        record = TaskRecord.model_validate_json(shipped.record_json)
        if (record.task_id, record.attempt) != pair:
            raise EndstateError(
                f"{entry.label} answered for {record.task_id!r} attempt {record.attempt!r} "
                f"when asked for {pair[0]!r} attempt {pair[1]!r}"
            )
        folder = self.store.trace_dir(*pair)
        await asyncio.to_thread(unpack_traces, shipped.files, folder)
        record = await self._judged(self.tasks[pair[0]], record, shipped.files)
        if record.facts is not None:
            record = record.model_copy(
                update={"facts": record.facts.model_copy(update={"ran_on": entry.label})}
            )
        self._append(record)

    async def _judged(self, task: Task, record: TaskRecord, files: dict[str, bytes]) -> TaskRecord:
        """Rubric checks are judged here, by the run's one judge (its cache, its budget), from
        the very end state the worker scored; without a judge the worker's record stands."""
        if self.judge is None:
            return record
        rubric = any(c.type == "llm_judge" for c in task.grading.checks)
        state = files.get("end_state.json")
        if not rubric or state is None or record.status not in ("passed", "failed"):
            return record.model_copy(update={"judge": self.judge.identity})
        began = time.monotonic()
        final = record.facts.final_message if record.facts else None
        judged = await asyncio.to_thread(
            score_task,
            task,
            json.loads(state),
            record.attempt,
            self.judge,
            record.state_source,
            final,
        )
        facts = record.facts
        if facts is not None:
            spent = round(facts.scoring_seconds + time.monotonic() - began, 3)
            facts = facts.model_copy(update={"scoring_seconds": spent})
        return judged.model_copy(update={"facts": facts, "outcomes": record.outcomes})

    async def _record_lost(self, pair: Pair, entry: WorkerEntry, error: str) -> None:
        """An attempt whose worker was lost on every try: unmeasurable, with the evidence."""
        self.journal.attempt_lost(pair, entry, error)
        fault = InfrastructureFault(
            kind="executor", call="attempt", detail=f"{entry.label}: {error}"[:500]
        )
        record = unmeasurable(
            self.tasks[pair[0]],
            pair[1],
            f"executor: the worker running this attempt was lost {ATTEMPT_RETRIES + 1} times "
            f"({error})"[:500],
            self.judge,
            infrastructure=fault,
        )
        self._append(record)

    def _append(self, record: TaskRecord) -> None:
        self.store.append(record)
        if self.on_record:
            self.on_record(record)

    async def _stop(self, actor: Any, entry: WorkerEntry) -> None:
        with contextlib.suppress(Exception):  # courtesy: the actor is killed either way
            await asyncio.wait_for(self._call(actor.stop.remote()), STOP_TIMEOUT)
        self._kill(actor)
        self.journal.stopped(entry)

    def _kill(self, actor: Any) -> None:
        with contextlib.suppress(Exception):  # already gone
            self.ray.kill(actor, no_restart=True)


def _env_names(settings: RaySettings) -> dict[str, list[str]]:
    """Which variables went to which workers, by name: values may be secrets."""
    names: dict[str, list[str]] = {}
    for e in settings.worker_env:
        names.setdefault(f"worker {e.slot}" if e.slot else "every worker", []).append(e.name)
    return names


def _one_line(exc: BaseException) -> str:
    """The error in one line: for an exception raised inside a worker, the worker's own."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        exc = cause
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")[:300]


def worker_spec(
    plan: RunPlan,
    manifest: Manifest,
    env_kind: str,
    world_seed: int | None,
    system_options: dict[str, dict[str, Any]],
    agent_options: dict[str, Any] | None,
) -> WorkerSpec:
    """What every worker is given: plain values to rebuild the run, and the pins to match."""
    root = manifest.corpus.root
    return WorkerSpec(
        slot=0,
        corpus_root=root,
        corpus_in_package=package_relative(Path(root)),
        expected=run_pins(manifest),
        env_kind=env_kind,
        seed=manifest.seed,
        world_seed=world_seed,
        system_options=system_options,
        agent_spec=manifest.agent.spec,
        agent_options=agent_options,
        max_steps=plan.max_steps,
        time_limit=plan.time_limit,
        attempts=len(plan.pairs()),
        blocked=dict(plan.blocked),
        prices=plan.prices,
    )


async def execute_on_ray(
    plan: RunPlan,
    store: RunStore,
    manifest: Manifest,
    spec: WorkerSpec,
    settings: RaySettings,
    done: set[Pair],
    judge: Judge | None = None,
    on_record: Callable[[TaskRecord], None] | None = None,
) -> Manifest:
    """Run every attempt not in `done` on Ray; returns the manifest with this execution noted."""
    pending = [(t.id, a) for t, a in plan.pairs() if (t.id, a) not in done]
    if not pending:  # a resumed run with nothing left: no cluster needed
        return manifest
    began = time.monotonic()
    with ray_started(settings, plan.workers) as ray:
        execution = RayExecution(ray, plan, store, manifest, spec, settings, judge, on_record)
        execution.journal.timings["ray_start_seconds"] = round(time.monotonic() - began, 3)
        execution.journal.write()
        noted = await execution.run(pending)
    # A worker killed mid-run never ran its own clean-up, and a run may end before its
    # replacement makes a scratch folder (which sweeps): its root on this machine (episodes,
    # staging) is removed here at the latest, once every worker has stopped.
    await asyncio.to_thread(sweep)
    return noted

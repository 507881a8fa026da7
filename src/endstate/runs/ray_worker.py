"""One Ray worker of a run: an actor with its own environment instance, browser and agent.

It is made on its node from plain values (the agent's spec and options, the environment's
kind and seeds), never from the driver's live objects, and it verifies the run's pins — the
corpus on its node, its build, its environment's fingerprint, its agent's configuration —
before it takes any work. Each attempt runs through the same `Runner.attempt` as a local run,
against a run store of the worker's own in a temporary folder; the record and the trace files
go back to the driver, which alone writes the run directory. Scoring here is deterministic
only: rubric checks are judged on the driver, where the run's one judge keeps its cache and
budget.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import time
from contextlib import AsyncExitStack
from pathlib import Path

import ray

from endstate.agents.registry import make_agent
from endstate.build import build_info
from endstate.corpus.loader import load_corpus
from endstate.corpus.lock import hash_tree, tree_hash
from endstate.corpus.model import Task
from endstate.runs.runner import Runner, RunPlan
from endstate.runs.session import RunOptions, agent_pin, start_environment, started_agent
from endstate.runs.shared_browser import shared_browser
from endstate.runs.store import RunStore
from endstate.runs.worker_pins import (
    Mismatch,
    ShippedAttempt,
    WorkerReady,
    WorkerSpec,
    agent_pins,
    build_pins,
    corpus_pins,
    environment_pins,
    mismatches,
    node_corpus,
    pack_traces,
)
from endstate.scratch import scratch


def _corpus_hash(root: Path) -> str:
    """The tree hash of the corpus this node has (what `load_corpus` would pin)."""
    if not root.is_dir():
        return f"no corpus directory at {root}"
    return tree_hash(hash_tree(root))


class AttemptWorker:
    """An actor class (wrapped by `ray.remote` on the driver): one worker of one run."""

    def __init__(self) -> None:
        self._began = time.monotonic()
        self._stack = AsyncExitStack()
        self._home: Path | None = None  # made once the worker takes work, removed at stop
        self._runner: Runner | None = None
        self._tasks: dict[str, Task] = {}

    def _answer(self, root: Path, refused: list[Mismatch]) -> WorkerReady:
        return WorkerReady(
            node_id=ray.get_runtime_context().get_node_id(),
            node_ip=ray.util.get_node_ip_address(),  # type: ignore[no-untyped-call]
            hostname=socket.gethostname(),
            pid=os.getpid(),
            corpus=str(root),
            refused=tuple(refused),
            seconds=round(time.monotonic() - self._began, 3),
        )

    async def _refuse(self, root: Path, refused: list[Mismatch]) -> WorkerReady:
        await self.stop()
        return self._answer(root, refused)

    async def start(self, spec: WorkerSpec) -> WorkerReady:
        """Rebuild the run here and compare pins, cheapest first; refuse on the first stage
        that differs, having taken no work. A start that fails undoes what it had started."""
        try:
            return await self._start(spec)
        except BaseException:
            await self.stop()
            raise

    async def _start(self, spec: WorkerSpec) -> WorkerReady:
        root = node_corpus(spec)
        # The tree hash first, so a node's other corpus is refused with its own hash, before
        # the loader (which hashes it again) could refuse it for its own reasons.
        found = corpus_pins(_corpus_hash(root)) | build_pins(build_info())
        if wrong := mismatches(spec.expected, found):
            return self._answer(root, wrong)
        corpus = load_corpus(root)
        env = await self._stack.enter_async_context(
            start_environment(spec.env_kind, spec.seed, spec.world_seed, None, spec.system_options)
        )
        info = env.info()
        found = environment_pins(
            info.kind, info.fingerprint, info.world_hash, info.pinned_clock, info.details
        )
        if wrong := mismatches(spec.expected, found):
            return await self._refuse(root, wrong)
        agent = make_agent(spec.agent_spec, spec.agent_options)
        home = self._home = scratch("endstate-worker-")
        opts = RunOptions(
            corpus=root,
            agent=agent,
            agent_spec=spec.agent_spec,
            out=home,
            workers=1,
            max_steps=spec.max_steps,
            time_limit=spec.time_limit,
        )
        await self._stack.enter_async_context(started_agent(opts, corpus, env, spec.attempts))
        found = agent_pins(agent_pin(spec.agent_spec, agent, spec.agent_options), agent.isolation())
        if wrong := mismatches(spec.expected, found):
            return await self._refuse(root, wrong)
        browser = await self._stack.enter_async_context(
            shared_browser(agent.uses_page or env.needs_harness_browser)
        )
        self._tasks = {t.id: t for t in corpus.tasks}
        plan = RunPlan(
            tasks=corpus.tasks,
            attempts=1,
            workers=1,
            max_steps=spec.max_steps,
            time_limit=spec.time_limit,
            blocked=spec.blocked,
            prices=spec.prices,
        )
        store = RunStore(home / "run")
        self._runner = Runner(plan, env, agent, store, judge=None, browser=browser)
        return self._answer(root, [])

    async def attempt(self, task_id: str, attempt: str) -> ShippedAttempt:
        """One attempt, exactly as the local runner makes it; its traces leave with it."""
        if self._runner is None:
            raise RuntimeError("this worker refused the run or was never started")
        record = await self._runner.attempt(self._tasks[task_id], attempt)
        folder = self._runner.store.trace_dir(task_id, attempt)
        files = pack_traces(folder)
        with contextlib.suppress(OSError):  # the task's folder, once its last attempt left
            folder.parent.rmdir()
        return ShippedAttempt(task_id, attempt, record.model_dump_json(), files)

    async def stop(self) -> None:
        """Close the agent, browser and environment, and remove the worker's own folder."""
        try:
            await self._stack.aclose()
        finally:
            self._runner = None
            if self._home is not None:
                shutil.rmtree(self._home, ignore_errors=True)

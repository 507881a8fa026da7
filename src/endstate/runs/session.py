"""One `endstate run`: pin everything, refuse on drift, run every attempt, write the run.

Order matters and follows the discipline: the corpus lock and the firewall are checked
before an environment starts; every pin is recorded (and compared with `--pin`) before the
first attempt; the report is written only from the records on disk.
"""

from __future__ import annotations

import asyncio
import fnmatch
import secrets
from collections.abc import Awaitable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from endstate import firewall
from endstate.boundary import boundary_weakenings
from endstate.build import BuildInfo, build_info
from endstate.corpus.contamination import pin_register
from endstate.corpus.loader import Corpus, load_corpus
from endstate.corpus.model import Task
from endstate.errors import EndstateError
from endstate.manifest import (
    CorpusPin,
    EndpointCheck,
    EnvironmentPin,
    ExecutorUse,
    FirewallSummary,
    HostFacts,
    Isolation,
    Manifest,
    RunLimits,
    pin_mismatches,
)
from endstate.records import TaskFacts, TaskRecord, not_recorded
from endstate.report.disclosure import Disclosure, interrupted_note, run_disclosure
from endstate.report.html import render_html
from endstate.report.model_loss import model_loss_note
from endstate.report.summary import Summary, summarize
from endstate.report.text import render_text
from endstate.runs.environment import Environment, EnvironmentInfo, agent_writes_state
from endstate.runs.environment_kinds import (
    choose_environment,
)
from endstate.runs.preflight import check_endpoints
from endstate.runs.run_setup import RunOptions as RunOptions
from endstate.runs.run_setup import (
    agent_pin,
    refusing_agent_writable_state,
    refusing_foreign_tasks,
    start_environment,
    started_agent,
)
from endstate.runs.runner import Runner, RunPlan
from endstate.runs.shared_browser import LaunchAhead, shared_browser
from endstate.runs.store import RunStore, read_manifest_file
from endstate.scoring.check_kinds import require_scorable


@dataclass
class RunResult:
    store: RunStore
    manifest: Manifest
    records: list[TaskRecord]
    summary: Summary
    disclosure: Disclosure
    report: str


def select_tasks(corpus: Corpus, pattern: str | None) -> list[str]:
    ids = [t.id for t in corpus.tasks]
    if not pattern:
        return ids
    chosen = [i for i in ids if any(fnmatch.fnmatchcase(i, p.strip()) for p in pattern.split(","))]
    if not chosen:
        raise EndstateError(f"--tasks {pattern!r}: matches no task in {corpus.root}")
    return chosen


def _manifest(
    opts: RunOptions,
    corpus: Corpus,
    tasks: list[Task],
    blocked: dict[str, str],
    env: Environment,
    info: EnvironmentInfo,
    browser: str | None,
    isolation: Isolation,
    endpoint_checks: list[EndpointCheck],
    build: BuildInfo,
) -> Manifest:
    agent = opts.agent
    task_ids = [t.id for t in tasks]
    return Manifest(
        run_id=datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3),
        mode="scored" if agent.scored else "validation",
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        corpus=CorpusPin(
            name=corpus.name,
            root=str(corpus.root),
            tree_hash=corpus.tree_hash,
            files=corpus.file_hashes,
            vendored=corpus.vendored,
            imported_at=corpus.lock.imported_at if corpus.lock else None,
        ),
        tasks=task_ids,
        task_facts={
            t.id: TaskFacts(
                family=t.family,
                tier=t.tier,
                scenario_label=t.public.scenario_label,
                template=t.template,
                weight=t.grading.weight,
                rubric_checks=sum(c.type == "llm_judge" for c in t.grading.checks),
            )
            for t in tasks
        },
        selection=opts.tasks,
        gates=opts.gates,
        contamination=(
            pin_register(opts.contamination, corpus, task_ids) if opts.contamination else None
        ),
        build=build,
        agent=agent_pin(opts.agent_spec, agent),
        judge=opts.judge.identity if opts.judge else None,
        environment=EnvironmentPin(
            kind=info.kind,
            fingerprint=info.fingerprint,
            world_id=info.world_id,
            world_hash=info.world_hash,
            pinned_clock=info.pinned_clock,
            details=info.details | _state_store(env, isolation, opts),
        ),
        limits=RunLimits(
            attempts=opts.attempts,
            workers=opts.workers,
            max_steps=opts.max_steps,
            time_limit=opts.time_limit,
        ),
        seed=opts.seed,
        firewall=FirewallSummary(verified=len(task_ids) - len(blocked), blocked=blocked),
        host=HostFacts.here(browser),
        isolation=isolation,
        prices=opts.prices.pin() if opts.prices else None,
        executors=[
            ExecutorUse(
                kind="ray" if opts.executor.kind == "ray" else "local",
                started_at=_now_utc(),
                workers=opts.workers,
                address=opts.executor.ray.address if opts.executor.kind == "ray" else None,
            )
        ],
        endpoint_checks=endpoint_checks,
    )


def _state_store(env: Environment, isolation: Isolation, opts: RunOptions) -> dict[str, Any]:
    """For an end state kept in the agent's browser: that, and whether the agent could write it."""
    if env.state_store != "agent_browser":
        return {}
    writable = agent_writes_state(env, isolation.mode)
    return {
        "state_store": env.state_store,
        "agent_writable_state": writable,
        "agent_writable_state_allowed": bool(opts.allow_agent_writable_state and writable),
    }


def _refuse(what: str, mismatches: list[str]) -> None:
    if mismatches:
        shown = "; ".join(mismatches[:3]) + (
            f" (+{len(mismatches) - 3} more)" if len(mismatches) > 3 else ""
        )
        raise EndstateError(f"{what}: {shown}")


def _resumed(
    opts: RunOptions, store: RunStore, previous: Manifest, manifest: Manifest, task_ids: list[str]
) -> Manifest:
    """The resumed run's own manifest, refused if this start contradicts it in any pin."""
    selection = (
        [f"tasks: the run has {len(previous.tasks)}, this selection {len(task_ids)}"]
        if previous.tasks != task_ids
        else []
    )
    if opts.gates is not None and (
        previous.gates is None or previous.gates.sha256 != opts.gates.sha256
    ):
        selection.append("gates: a run keeps the gates it declared when it started")
    _refuse(f"refusing to resume {store.root}", pin_mismatches(previous, manifest) + selection)
    resumed = previous.model_copy(
        update={
            "resumed_at": [*previous.resumed_at, _now_utc()],
            "finished_at": None,
            "executors": [*previous.executors, *manifest.executors],  # not a pin
            "endpoint_checks": [*previous.endpoint_checks, *manifest.endpoint_checks],
        }
    )
    store.write_manifest(resumed)
    return resumed


def _blocked(tasks: list[Task]) -> dict[str, str]:
    """The tasks the firewall blocks, with why: they are recorded, never run."""
    verdicts = {task.id: firewall.verify(task) for task in tasks}
    return {i: v.reason or "blocked" for i, v in verdicts.items() if v.status == "blocked"}


async def execute(opts: RunOptions) -> RunResult:
    # The browser an in-process agent will take starts first: it is the slowest thing to set
    # up, and starts alongside loading the corpus and checking endpoints.
    ahead = LaunchAhead() if opts.agent.uses_page else None
    # The build's pin asks git twice: it is asked meanwhile, off the loop.
    build = asyncio.ensure_future(asyncio.to_thread(build_info))
    try:
        return await _execute(opts, ahead, build)
    finally:
        if ahead is not None:
            await ahead.abandon()  # a no-op once a run took it; else it is closed
        if not build.done():
            build.cancel()


async def _execute(
    opts: RunOptions, ahead: LaunchAhead | None, build: Awaitable[BuildInfo]
) -> RunResult:
    corpus = load_corpus(opts.corpus)  # refuses an edited vendored corpus
    task_ids = select_tasks(corpus, opts.tasks)
    tasks = [corpus.task(i) for i in task_ids]
    require_scorable(tasks)  # a check no kind scores refuses the run before any attempt
    blocked = _blocked(tasks)
    pinned = read_manifest_file(opts.pin) if opts.pin else None
    store: RunStore | None = RunStore(opts.resume) if opts.resume else None
    previous = store.read_manifest() if store else None
    # Before anything starts: a dead model or judge endpoint refuses the run in one line.
    endpoint_checks = await check_endpoints(opts.agent, opts.judge, tasks)

    kind = opts.env or choose_environment([t.public for t in tasks])
    finishing: asyncio.Future[RunResult] | None = None
    try:
        async with AsyncExitStack() as started:
            env = await started.enter_async_context(
                start_environment(
                    kind, opts.seed, opts.world_seed, opts.environment, opts.system_options
                )
            )
            await started.enter_async_context(refusing_foreign_tasks(env, tasks, corpus))
            await started.enter_async_context(refusing_agent_writable_state(env, opts))
            agent = await started.enter_async_context(
                started_agent(opts, corpus, env, len(tasks) * opts.attempts)
            )
            needs_browser = agent.uses_page or env.needs_harness_browser
            # The environment's pins (the embedded suite's: a probe episode's fingerprint) are
            # read off the loop, while the browser may still be starting.
            info = await asyncio.to_thread(env.info)
            if ahead is not None and needs_browser:
                browser = await ahead.enter(started)
            else:
                if ahead is not None:  # started for an agent that, once set up, takes no page
                    await ahead.abandon()
                browser = await started.enter_async_context(shared_browser(needs_browser))
            isolation = agent.isolation()
            manifest = _manifest(
                opts,
                corpus,
                tasks,
                blocked,
                env,
                info,
                browser.version if browser else isolation.details.get("browser_version"),
                isolation,
                endpoint_checks,
                await build,
            )
            if pinned is not None:
                _refuse(
                    f"refusing to start: {opts.pin} pins a different run",
                    pin_mismatches(pinned, manifest),
                )
            if store is not None and previous is not None:
                manifest = _resumed(opts, store, previous, manifest, task_ids)
                done = {(r.task_id, r.attempt) for r in store.read_records(repair=True)}
            else:
                store = RunStore(opts.out / manifest.run_id)
                store.create(manifest)
                done = set()
            if opts.on_store:
                opts.on_store(store.root)
            plan = RunPlan(
                tasks=tasks,
                attempts=opts.attempts,
                workers=opts.workers,
                max_steps=opts.max_steps,
                time_limit=opts.time_limit,
                blocked=blocked,
                prices=opts.prices,
            )
            if opts.on_start:
                opts.on_start(len(plan.pairs()), len(done))
            if opts.executor.kind == "ray":
                # Here the environment, agent and browser only pinned the run: the workers have
                # their own, so these close before the workers start rather than sit idle.
                await started.aclose()
                manifest = await _on_ray(opts, plan, store, manifest, kind, done)
            else:
                runner = Runner(
                    plan,
                    env,
                    opts.agent,
                    store,
                    judge=opts.judge,
                    browser=browser,
                    on_record=opts.on_record,
                )
                await runner.execute(done)
            # The report is written while what the run started (browser, environment) closes.
            finishing = asyncio.ensure_future(asyncio.to_thread(finish, store, manifest))
    except BaseException:
        if finishing is not None:  # the report was on its way: it lands before the error
            await asyncio.gather(finishing, return_exceptions=True)
        raise
    assert finishing is not None
    return await finishing


async def _on_ray(
    opts: RunOptions,
    plan: RunPlan,
    store: RunStore,
    manifest: Manifest,
    kind: str,
    done: set[tuple[str, str]],
) -> Manifest:
    """The executor seam: the same plan, pins and run directory, attempts on Ray workers."""
    from endstate.agents.registry import made_with
    from endstate.runs.executor_ray import execute_on_ray, worker_spec

    spec = worker_spec(
        plan,
        manifest,
        kind,
        opts.world_seed,
        opts.system_options,
        opts.agent_options if opts.agent_options is not None else made_with(opts.agent),
    )
    return await execute_on_ray(
        plan, store, manifest, spec, opts.executor.ray, done, opts.judge, opts.on_record
    )


def _now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def unrecorded(manifest: Manifest, records: list[TaskRecord]) -> list[TaskRecord]:
    """Scheduled attempts with no record: they count, as unmeasurable, in every report."""
    have = {(r.task_id, r.attempt) for r in records}
    return [
        not_recorded(task, str(a), manifest.task_facts.get(task))
        for a in range(1, manifest.limits.attempts + 1)
        for task in manifest.tasks
        if (task, str(a)) not in have
    ]


def render(
    store: RunStore, manifest: Manifest
) -> tuple[list[TaskRecord], Summary, Disclosure, str]:
    """The report, computed only from the records on disk and the manifest.

    Records that are not exactly one per scheduled (task, attempt) are refused: one line naming
    the run, the file, the line, the task and the attempt, and no report."""
    try:
        records = store.read_records()
    except EndstateError as exc:
        raise EndstateError(f"refusing to report run {manifest.run_id}: {exc}") from None
    records += unrecorded(manifest, records)
    summary = summarize(records)
    disclosure = run_disclosure(manifest, records, summary)
    weakenings = boundary_weakenings(manifest, records)
    title = (
        f"endstate run {manifest.run_id} — {manifest.agent.spec} on {manifest.corpus.name} "
        f"({manifest.mode})"
        + "".join(f" — {w.label}" for w in weakenings)
        + interrupted_note(records)
        + model_loss_note(records)
    )
    text = render_text(summary, disclosure, title)
    if manifest.gates is not None:
        from endstate.regress.gate_verdicts import gate_verdicts, gates_text

        text += "\n" + gates_text(gate_verdicts(manifest, records, store.root), weakenings)
    return records, summary, disclosure, text


def finish(store: RunStore, manifest: Manifest) -> RunResult:
    """Complete the manifest and write the report."""
    records, summary, disclosure, report = render(store, manifest)
    manifest = manifest.model_copy(
        update={
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "disclosure": disclosure.items,
        }
    )
    store.write_manifest(manifest)
    store.write_report(report)
    store.write_html(render_html(summary, disclosure, report.splitlines()[0], records))
    return RunResult(store, manifest, records, summary, disclosure, report)

"""The runner: every (task, attempt) on a fresh episode and a fresh browser context.

Whatever the agent does — finishes, crashes, stalls, hits a limit — the end state is read
back from the environment and scored. Only an end state that cannot be read makes an
attempt unmeasurable. Parallel workers share one browser process and one environment.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from endstate import firewall
from endstate.agents.agent_output import contained
from endstate.agents.base import Agent, AgentOutcome, AttemptContext
from endstate.agents.model_calls import reached_no_model
from endstate.corpus.model import Task
from endstate.records import AttemptFacts, InfrastructureFault, TaskRecord
from endstate.runs.environment import (
    Environment,
    EpisodeHandle,
    StateUnavailable,
    agent_writes_state,
    open_task_episode,
)
from endstate.runs.outcomes import outcomes_of
from endstate.runs.prices import PriceTable, agent_model
from endstate.runs.shared_browser import PagesAhead, closed_quietly, fresh_page, quietly
from endstate.runs.store import RunStore
from endstate.scoring.judge import Judge
from endstate.scoring.states import writable_state
from endstate.scoring.task_score import blocked, harness_fault, score_task, unmeasurable

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page

    from endstate.runs.shared_browser import SharedBrowser


@dataclass
class RunPlan:
    tasks: list[Task]
    attempts: int
    workers: int
    max_steps: int
    time_limit: float
    blocked: dict[str, str] = field(default_factory=dict)
    prices: PriceTable | None = None

    def pairs(self) -> list[tuple[Task, str]]:
        return [(t, str(a)) for a in range(1, self.attempts + 1) for t in self.tasks]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Runner:
    def __init__(
        self,
        plan: RunPlan,
        env: Environment,
        agent: Agent,
        store: RunStore,
        judge: Judge | None = None,
        browser: SharedBrowser | None = None,
        on_record: Callable[[TaskRecord], None] | None = None,
    ) -> None:
        self.plan = plan
        self.env = env
        self.agent = agent
        self.store = store
        self.judge = judge
        self.browser = browser
        self.on_record = on_record
        # An environment keeping its end state in the browser, and an agent with its own
        # browser (not a harness page): the state is what that browser held when it ended.
        self.state_from_agent_browser = agent_writes_state(env, agent.isolation().mode)
        harness_reads = env.needs_harness_browser and not self.state_from_agent_browser
        self.takes_page = browser is not None and (agent.uses_page or harness_reads)
        self.model = agent_model(agent.config()) if plan.prices is not None else None

    async def execute(self, done: set[tuple[str, str]]) -> None:
        """Run every attempt not already in `done`, with at most `workers` at a time."""
        queue: asyncio.Queue[tuple[Task, str]] = asyncio.Queue()
        for task, attempt in self.plan.pairs():
            if (task.id, attempt) not in done:
                queue.put_nowait((task, attempt))

        def take() -> tuple[Task, str] | None:
            try:
                return queue.get_nowait()
            except asyncio.QueueEmpty:
                return None

        async def worker() -> None:
            # Harness work overlaps the attempts: the next attempt's episode opens while this
            # one runs, and once an attempt's end state is scored, closing its browser context
            # and episode and writing its record (an fsync) overlap the next attempt. At most
            # one episode waits and one attempt settles per worker, so nothing piles up.
            # Its next browser page is made while an attempt runs, too (`PagesAhead`).
            settling: asyncio.Task[None] | None = None
            pages = PagesAhead(self.browser) if self.browser and self.takes_page else None
            upcoming = take()
            opening = self._opening(*upcoming) if upcoming else None
            try:
                while upcoming is not None:
                    (task, attempt), its_episode = upcoming, opening
                    upcoming = take()
                    opening = self._opening(*upcoming) if upcoming else None
                    more = upcoming is not None
                    record, held = await self._measure(task, attempt, its_episode, pages, more)
                    if settling is not None:
                        await settling
                    settling = asyncio.create_task(self._finish(task, attempt, record, held))
            finally:
                if opening is not None:  # opened for an attempt that will not run now
                    await self._release(_Held(episode=await _opened(opening)))
                if pages is not None:  # made for an attempt that will not run now
                    await pages.discard()
                if settling is not None:  # last: a failure to write its record propagates
                    await settling

        await asyncio.gather(*(worker() for _ in range(max(1, self.plan.workers))))

    async def _finish(self, task: Task, attempt: str, record: TaskRecord, held: _Held) -> None:
        record = await self._settle(record, held)
        try:  # off the loop: the fsync would hold up the attempt running meanwhile
            await asyncio.to_thread(self.store.append, record)
        except ValueError as exc:  # the record itself could not be written
            record = harness_fault(task, attempt, "write_record", exc, self.judge)
            await asyncio.to_thread(self.store.append, record)
        if self.on_record:
            self.on_record(record)

    async def attempt(self, task: Task, attempt: str) -> TaskRecord:
        """One attempt, whole: its record once its context and episode are closed."""
        record, held = await self._measure(task, attempt)
        return await self._settle(record, held)

    def _opening(self, task: Task, attempt: str) -> asyncio.Task[EpisodeHandle] | None:
        """The attempt's episode, opening ahead of it (none for a blocked task)."""
        if task.id in self.plan.blocked:
            return None
        return asyncio.create_task(open_task_episode(self.env, task, f"{task.id}#{attempt}"))

    async def _measure(
        self,
        task: Task,
        attempt: str,
        opening: Awaitable[EpisodeHandle] | None = None,
        pages: PagesAhead | None = None,
        more: bool = False,
    ) -> tuple[TaskRecord, _Held]:
        """The attempt up to its scored record; what it holds open is for the caller to settle.
        `opening`: its episode, already on its way; else it is opened here. `pages`: where
        its page is taken (`more`: and the next one started); else it is made here."""
        held = _Held()
        if task.id in self.plan.blocked:
            return blocked(task, attempt, self.plan.blocked[task.id], self.judge), held
        started = time.monotonic()
        started_at = _now()
        try:
            held.episode = await (
                opening or open_task_episode(self.env, task, f"{task.id}#{attempt}")
            )
        except Exception as exc:
            fault = InfrastructureFault(kind="environment", call="open_episode", detail=str(exc))
            record = unmeasurable(
                task,
                attempt,
                f"environment could not open an episode: {exc}",
                self.judge,
                infrastructure=fault,
            )
            return record, held
        try:
            record = await self._on_episode(task, attempt, held, started, started_at, pages, more)
        except Exception as exc:  # a defect of the harness's: this attempt is lost, never the run
            record = harness_fault(task, attempt, "attempt", exc, self.judge)
        except BaseException:
            await self._release(held)
            raise
        return record, held

    async def _settle(self, record: TaskRecord, held: _Held) -> TaskRecord:
        """Keep the end state scored, close the attempt's browser context, then its episode
        (named in the record if the close failed)."""
        if held.files:
            await asyncio.to_thread(_write_files, held.files)
        if held.context is not None:
            await closed_quietly(held.context)
        if held.episode is None:
            return record
        return await self._closed(record, held.episode)

    async def _release(self, held: _Held) -> None:
        """A cancelled attempt: close what it held, record nothing."""
        if held.context is not None:
            await closed_quietly(held.context)
        if held.episode is not None:
            await quietly(self.env.close_episode(held.episode))

    async def _on_episode(
        self,
        task: Task,
        attempt: str,
        held: _Held,
        started: float,
        started_at: str,
        pages: PagesAhead | None,
        more: bool,
    ) -> TaskRecord:
        """The attempt proper, on an open episode; the caller closes what `held` holds."""
        assert held.episode is not None
        episode = held.episode
        verdict = firewall.verify(task, binding=episode.binding)
        if verdict.status == "blocked":
            return blocked(task, attempt, verdict.reason or "blocked", self.judge)
        projection = firewall.project(task, episode.binding)
        trace_dir = self.store.trace_dir(task.id, attempt)
        ctx = AttemptContext(
            projection=projection,
            start_urls=episode.start_urls,
            max_steps=self.plan.max_steps,
            time_limit=self.plan.time_limit,
            trace_dir=trace_dir,
        )
        page: Page | None = None
        generation = None
        if self.browser is not None and self.takes_page:
            try:
                fresh = pages.take(more) if pages is not None else fresh_page(self.browser)
                held.context, generation, page = await fresh
            except Exception as exc:  # the agent never acted: nothing was measured
                reason = f"infrastructure: no browser page for the attempt: {exc}"
                no_page = InfrastructureFault(kind="browser", call="new_page", detail=str(exc))
                return unmeasurable(task, attempt, reason[:500], self.judge, infrastructure=no_page)
            if projection.start_url:
                await _goto(page, projection.start_url)
        outcome, repairs = await self._run_agent(ctx, page)
        fault: InfrastructureFault | None = None
        if generation is not None and self.browser and not self.browser.alive(generation):
            # Not the agent's doing: the run's browser died under it (and the others).
            lost = "the shared browser died during the attempt"
            outcome = outcome.model_copy(update={"infrastructure_error": lost})
            fault = InfrastructureFault(kind="browser", call="attempt", detail=lost)
        elif outcome.infrastructure_error:
            fault = InfrastructureFault(
                kind="sandbox", call="start_agent", detail=outcome.infrastructure_error
            )
        elif reached_no_model(outcome.usage):
            # Not one model call answered: the agent never acted, the endpoint failed.
            lost = model_lost(outcome)
            outcome = outcome.model_copy(update={"infrastructure_error": lost})
            fault = InfrastructureFault(kind="model", call="model_call", detail=lost)
        facts = attempt_facts(outcome, episode.episode_id, started_at, started, repairs)
        if self.plan.prices is not None:
            facts.cost_usd = self.plan.prices.cost(self.model, facts)
        held.files.extend(_trace_files(trace_dir, outcome, facts))
        if outcome.infrastructure_error:  # the agent never acted: nothing was measured
            record = unmeasurable(
                task,
                attempt,
                f"infrastructure: {outcome.infrastructure_error}",
                self.judge,
                infrastructure=fault,
            )
            return record.model_copy(update={"facts": facts})
        return await self._score(task, attempt, held, page, facts, outcome)

    async def _closed(self, record: TaskRecord, episode: EpisodeHandle) -> TaskRecord:
        """Close the episode; a close that failed (every retry) is named in the record."""
        try:
            await self.env.close_episode(episode)
        except Exception as exc:
            problem = f"episode {episode.episode_id} was not closed: {exc}"
            error = f"{record.error}; {problem}" if record.error else problem
            return record.model_copy(update={"error": error})
        return record

    async def _run_agent(
        self, ctx: AttemptContext, page: Page | None
    ) -> tuple[AgentOutcome, list[str]]:
        """The agent's outcome, read through the one bounded step, and what that repaired."""
        try:
            # The agent's own limit is enforced here too: a stalled agent cannot hold a worker.
            outcome = await asyncio.wait_for(
                self.agent.attempt(ctx, page), timeout=ctx.time_limit + 5
            )
        except TimeoutError:
            outcome = AgentOutcome(
                claim="timeout", error=f"stopped at the {ctx.time_limit:g}s limit"
            )
        except Exception as exc:
            outcome = AgentOutcome(
                claim="error", error=f"agent crashed: {type(exc).__name__}: {exc}"
            )
        return contained(outcome)

    async def _score(
        self,
        task: Task,
        attempt: str,
        held: _Held,
        page: Page | None,
        facts: AttemptFacts,
        outcome: AgentOutcome,
    ) -> TaskRecord:
        episode = held.episode
        assert episode is not None
        source = f"{self.env.kind}:episode/{episode.episode_id}"
        try:
            if not self.state_from_agent_browser:
                state = await self.env.read_state(episode, page)
            elif outcome.browser_storage is None:
                raise StateUnavailable(outcome.browser_storage_error or "no browser storage")
            else:
                state = await self.env.read_state(episode, None, outcome.browser_storage)
        except Exception as exc:
            fault = InfrastructureFault(kind="readback", call="read_state", detail=str(exc))
            record = unmeasurable(
                task, attempt, f"end state unreadable: {exc}", self.judge, source, fault
            )
            return record.model_copy(update={"facts": facts})
        # The exact document scored, kept for audits and for scoring it again elsewhere
        # (written as the attempt settles, before its record).
        state, text = writable_state(state)
        held.files.append((self.store.trace_dir(task.id, attempt) / "end_state.json", text))
        began = time.monotonic()
        scoring = (task, state, attempt, self.judge, source, outcome.final_message)
        if self.judge is None:  # checks alone take less than a thread's hand-off
            record = score_task(*scoring)
        else:  # a judge is called over the network: never on the loop
            record = await asyncio.to_thread(score_task, *scoring)
        facts = facts.model_copy(update={"scoring_seconds": round(time.monotonic() - began, 3)})
        return record.model_copy(update={"facts": facts, "outcomes": outcomes_of(task, state)})


@dataclass
class _Held:
    """What an attempt holds open until it is settled: its episode and browser context."""

    episode: EpisodeHandle | None = None
    context: BrowserContext | None = None
    # The attempt's trace and the end state scored, written as it settles (before its record).
    files: list[tuple[Path, bytes]] = field(default_factory=list)


async def _opened(opening: asyncio.Task[EpisodeHandle]) -> EpisodeHandle | None:
    """The episode an opening produced, if it did."""
    with contextlib.suppress(Exception):
        return await opening
    return None


async def _goto(page: Page, url: str) -> None:
    # The agent sees whatever loaded; the end state is read regardless.
    with contextlib.suppress(Exception):
        await page.goto(url, wait_until="domcontentloaded", timeout=30_000)


def attempt_facts(
    outcome: AgentOutcome,
    episode_id: str,
    started_at: str,
    started: float,
    repairs: list[str] | None = None,
) -> AttemptFacts:
    """The harness's record of what happened, the agent's usage included (never scored).

    A model that kept failing after some of its calls succeeded is the system's failure: it is
    flagged (`model_failure`), never an infrastructure fault. One none of whose calls
    succeeded measured nothing: the runner records that as a `model` fault (`model_lost`)."""
    usage = outcome.usage
    tokens = outcome.tokens
    return AttemptFacts(
        claim=outcome.claim,
        final_message=outcome.final_message,
        agent_error=outcome.error,
        steps=outcome.steps,
        output_problems=repairs or None,
        prompt_tokens=tokens.prompt if tokens else None,
        completion_tokens=tokens.completion if tokens else None,
        images=usage.images if usage else None,
        model_calls=usage.calls if usage else None,
        model_retries=usage.retries if usage else None,
        model_failed_calls=usage.failed_calls if usage else None,
        model_failure=True if outcome.model_failure else None,
        episode_id=episode_id,
        started_at=started_at,
        attempt_seconds=round(time.monotonic() - started, 3),
        sandbox=outcome.sandbox,
    )


def model_lost(outcome: AgentOutcome) -> str:
    """Why an attempt none of whose model calls succeeded is the endpoint's loss, in one line."""
    why = outcome.error or f"the attempt ended with claim {outcome.claim}"
    return f"no model call succeeded: {why}"[:500]


def _trace_files(
    trace_dir: Path, outcome: AgentOutcome, facts: AttemptFacts
) -> list[tuple[Path, bytes]]:
    actions = json.dumps([a.model_dump() for a in outcome.actions], indent=2, ensure_ascii=False)
    final = json.dumps(
        {
            "claim": outcome.claim,
            "final_message": outcome.final_message,
            "error": outcome.error,
            "steps": outcome.steps,
            "tokens": outcome.tokens.model_dump() if outcome.tokens else None,
            **_usage_trace(outcome, facts),
        },
        indent=2,
        ensure_ascii=False,
    )
    return [
        (trace_dir / "actions.json", actions.encode()),
        (trace_dir / "final.json", final.encode()),
    ]


def _write_files(files: list[tuple[Path, bytes]]) -> None:
    for path, data in files:
        path.write_bytes(data)


def _usage_trace(outcome: AgentOutcome, facts: AttemptFacts) -> dict[str, Any]:
    """Usage, cost and screenshot counts, for agents that report them (others: unchanged)."""
    extra: dict[str, Any] = {}
    if outcome.usage is not None:
        extra["usage"] = asdict(outcome.usage)
        extra["cost_usd"] = facts.cost_usd
    if outcome.model_failure:
        extra["model_failure"] = True
    if outcome.screens_saved is not None:
        extra["screens"] = {"saved": outcome.screens_saved, "dropped": outcome.screens_dropped}
    return extra

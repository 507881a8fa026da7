"""The runner overlaps harness work with attempts: the next episode opens while an attempt
runs, and an attempt's closing and record writing happen behind the next one. Neither may
leave an episode open or lose or reorder a record, whether the run ends or is stopped."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import jmespath_check, task_doc
from endstate.agents.base import AgentOutcome, AttemptContext, InProcessAgent
from endstate.envs.server import EmbeddedSuite
from endstate.runs.embedded import EmbeddedEnvironment
from endstate.runs.session import RunOptions, execute
from endstate.runs.store import RunStore


class WatchingAgent(InProcessAgent):
    """Notes which episodes the suite holds open while it acts; may stall on one attempt."""

    kind = "watching"
    name = "watching"
    scored = True
    uses_page = False

    def __init__(self, suite: EmbeddedSuite, stall_on: int | None = None) -> None:
        self.suite = suite
        self.stall_on = stall_on
        self.seen: list[set[str]] = []  # open episodes as each attempt ends
        self.attempts = 0
        self.stalled = asyncio.Event()

    def config(self) -> dict[str, Any]:
        return {}

    async def attempt(self, ctx: AttemptContext, page: Any) -> AgentOutcome:
        self.attempts += 1
        if self.attempts == self.stall_on:
            self.stalled.set()
            await asyncio.sleep(60)
        await asyncio.sleep(0.2)  # long enough for the next episode to be opened
        self.seen.append(set(self.suite.runtime.episodes))
        return AgentOutcome(claim="done")


@pytest.fixture(scope="module")
def suite() -> Any:
    with EmbeddedSuite.start() as running:
        yield running


def corpus(make_corpus: Callable[..., Path], n: int) -> Path:
    return make_corpus(
        {
            f"prior_auth/t-{i}.json": task_doc(
                f"t-{i}", evals=[jmespath_check("length(episode.id) > `0`")], website={"id": "ehr"}
            )
            for i in range(n)
        }
    )


def options(suite: EmbeddedSuite, root: Path, agent: WatchingAgent, out: Path) -> RunOptions:
    env = EmbeddedEnvironment(suite, run_seed=0, owns_suite=False)
    return RunOptions(
        corpus=root, agent=agent, agent_spec="watching", workers=1, out=out, environment=env
    )


def records(out: Path) -> list[dict[str, Any]]:
    (run,) = out.iterdir()
    return [r.model_dump() for r in RunStore(run).read_records()]


def test_the_next_episode_is_open_during_an_attempt_and_nothing_stays_open(
    suite: EmbeddedSuite, make_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    agent = WatchingAgent(suite)
    asyncio.run(execute(options(suite, corpus(make_corpus, 4), agent, tmp_path / "out")))

    written = records(tmp_path / "out")
    assert [r["task_id"] for r in written] == ["t-0", "t-1", "t-2", "t-3"]  # in order, once each
    assert all(r["status"] == "passed" for r in written)
    ids = [r["facts"]["episode_id"] for r in written]
    assert len(set(ids)) == 4
    for i, open_now in enumerate(agent.seen[:-1]):
        assert ids[i] in open_now and ids[i + 1] in open_now  # the next one is already open
    assert ids[-1] in agent.seen[-1] and len(agent.seen[-1] & set(ids)) <= 2
    assert not set(ids) & set(suite.runtime.episodes)  # every episode closed


def test_a_stopped_run_closes_the_episode_opened_ahead_and_keeps_what_it_measured(
    suite: EmbeddedSuite, make_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    agent = WatchingAgent(suite, stall_on=2)
    before = set(suite.runtime.episodes)

    async def run_then_stop() -> None:
        running = asyncio.create_task(
            execute(options(suite, corpus(make_corpus, 4), agent, tmp_path / "out"))
        )
        await asyncio.wait_for(agent.stalled.wait(), timeout=30)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    asyncio.run(run_then_stop())
    written = records(tmp_path / "out")
    assert [r["task_id"] for r in written] == ["t-0"]  # the finished attempt, settled
    assert set(suite.runtime.episodes) == before  # the stalled one and the one ahead: closed
    assert json.dumps(written)  # a readable store


class PageWatchingAgent(InProcessAgent):
    """Notes its page's context, and every context the browser holds, while it acts."""

    kind = "watching"
    name = "page-watching"
    scored = True
    uses_page = True

    def __init__(self, attempts: int) -> None:
        self.attempts = attempts
        self.contexts: list[Any] = []  # each attempt's own context
        self.held: list[list[Any]] = []  # every context of the browser as each attempt acts
        self.urls: list[str] = []
        self.cookies: list[list[Any]] = []

    def config(self) -> dict[str, Any]:
        return {}

    async def attempt(self, ctx: AttemptContext, page: Any) -> AgentOutcome:
        self.contexts.append(page.context)
        self.cookies.append(await page.context.cookies())
        # Until the earlier attempt's context is closed and, but for the last attempt, the
        # next one's is made (each takes milliseconds; a slow machine gets 10 s).
        want = 1 if len(self.contexts) == self.attempts else 2
        deadline = time.monotonic() + 10
        while len(page.context.browser.contexts) != want and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)  # nothing more is made meanwhile
        self.held.append(list(page.context.browser.contexts))
        self.urls.append(page.url)
        await page.context.add_cookies([{"name": "left", "value": "behind", "url": page.url}])
        return AgentOutcome(claim="done")


def test_the_next_page_is_made_during_an_attempt_and_every_attempt_has_a_fresh_one(
    suite: EmbeddedSuite, make_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    agent = PageWatchingAgent(attempts=3)
    env = EmbeddedEnvironment(suite, run_seed=0, owns_suite=False)
    opts = RunOptions(
        corpus=corpus(make_corpus, 3), agent=agent, agent_spec="watching", workers=1,
        out=tmp_path / "out", environment=env,
    )  # fmt: skip
    asyncio.run(execute(opts))

    assert [r["status"] for r in records(tmp_path / "out")] == ["passed"] * 3
    assert len({id(c) for c in agent.contexts}) == 3  # one context per attempt
    for i, held in enumerate(agent.held[:-1]):
        # its own, and the next attempt's, made meanwhile; never an earlier attempt's
        assert agent.contexts[i] in held and agent.contexts[i + 1] in held
        assert not set(map(id, agent.contexts[:i])) & set(map(id, held))
    assert agent.held[-1] == [agent.contexts[-1]]  # none made beyond the last attempt
    assert all("/worklist" in url for url in agent.urls)  # each navigated to its start
    assert not any(c["name"] == "left" for cookies in agent.cookies for c in cookies)

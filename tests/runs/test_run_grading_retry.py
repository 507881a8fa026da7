"""The runner's grading-channel calls when connections drop: retried, or named in the record.

A fake grading channel speaks HTTP in front of the real one: it forwards each request and
then loses the answer (closes the connection with no response), or refuses the request
outright, as a test tells it. Everything else is real: the suite, its episodes, the runner.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType

import httpx
import pytest

from endstate.agents.registry import make_agent
from endstate.envs.server import EmbeddedSuite
from endstate.records import TaskRecord
from endstate.runs.embedded import EmbeddedEnvironment
from endstate.runs.session import RunOptions, execute

ALWAYS = -1
FORWARDED_HEADERS = ("authorization", "content-type", "idempotency-key")


def _kind(method: str, target: str) -> str:
    path = target.split("?", 1)[0]
    if method == "POST" and path == "/episodes":
        return "create"
    if method == "GET" and path.endswith("/state"):
        return "state"
    if method == "DELETE":
        return "close"
    return "other"


class FlakyGrading:
    """An HTTP/1.1 proxy to the grading channel that drops connections on cue.

    `lose`: call kind -> how many answers to lose after forwarding (the server acted, the
    client never hears); `refuse`: how many requests to drop unforwarded. ALWAYS: every one.
    """

    def __init__(
        self,
        upstream: str,
        lose: dict[str, int] | None = None,
        refuse: dict[str, int] | None = None,
    ) -> None:
        self.upstream = upstream
        self.lose = dict(lose or {})
        self.refuse = dict(refuse or {})
        self.seen: Counter[str] = Counter()
        self.dropped: Counter[str] = Counter()
        self.url = ""

    async def __aenter__(self) -> FlakyGrading:
        self._client = httpx.AsyncClient(base_url=self.upstream, timeout=60)
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.close()
        await self._server.wait_closed()
        await self._client.aclose()

    @staticmethod
    def _take(rules: dict[str, int], kind: str) -> bool:
        left = rules.get(kind, 0)
        if left > 0:
            rules[kind] = left - 1
        return left != 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
                method, target, _ = head[0].split(" ", 2)
                fields = dict(line.split(": ", 1) for line in head[1:] if line)
                headers = {k: v for k, v in fields.items() if k.lower() in FORWARDED_HEADERS}
                length = int(
                    next((v for k, v in fields.items() if k.lower() == "content-length"), 0)
                )
                body = await reader.readexactly(length) if length else b""
                kind = _kind(method, target)
                self.seen[kind] += 1
                if self._take(self.refuse, kind):
                    self.dropped[kind] += 1
                    return
                answer = await self._client.request(method, target, headers=headers, content=body)
                if self._take(self.lose, kind):
                    self.dropped[kind] += 1
                    return
                status = f"HTTP/1.1 {answer.status_code} {answer.reason_phrase}\r\n"
                kept = f"Content-Type: {answer.headers.get('content-type', 'text/plain')}\r\n"
                writer.write(
                    f"{status}{kept}Content-Length: {len(answer.content)}\r\n\r\n".encode()
                    + answer.content
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()  # with nothing written: the client sees a connection closed


@pytest.fixture(scope="module")
def suite() -> Iterator[EmbeddedSuite]:
    running = EmbeddedSuite.start()
    yield running
    running.stop()


def _attempt(
    suite: EmbeddedSuite, corpus: Path, out: Path, flaky: FlakyGrading
) -> tuple[TaskRecord, FlakyGrading]:
    async def main() -> TaskRecord:
        async with flaky:
            env = EmbeddedEnvironment(
                suite, 0, owns_suite=False, grading_url=flaky.url, retry_delays=(0.01,) * 3
            )
            try:
                options = RunOptions(
                    corpus=corpus,
                    agent=make_agent("null"),
                    agent_spec="null",
                    out=out,
                    environment=env,
                )
                (record,) = (await execute(options)).records
            finally:
                await env.aclose()
        return record

    return asyncio.run(main()), flaky


def test_answers_lost_once_are_retried_and_the_attempt_is_scored_as_usual(
    suite: EmbeddedSuite, embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    closed_before = set(suite.runtime.closed)
    once = {"create": 1, "state": 1, "close": 1}
    record, flaky = _attempt(
        suite, embedded_corpus(1), tmp_path / "runs", FlakyGrading(suite.grading_url, lose=once)
    )
    assert flaky.dropped == Counter(once)
    assert {k: flaky.seen[k] for k in once} == {"create": 2, "state": 2, "close": 2}
    assert record.status == "failed" and record.checks and record.error is None
    # The create retried after its answer was lost got the episode already made, not a second.
    assert suite.runtime.episodes == {} and record.facts
    made = {e for e in suite.runtime.closed if not e.startswith("probe-")} - closed_before
    assert made == {record.facts.episode_id}


def test_a_state_read_that_keeps_failing_makes_the_attempt_unmeasurable_with_evidence(
    suite: EmbeddedSuite, embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    record, flaky = _attempt(
        suite,
        embedded_corpus(1),
        tmp_path / "runs",
        FlakyGrading(suite.grading_url, lose={"state": ALWAYS}),
    )
    assert flaky.seen["state"] == 4
    assert record.status == "unmeasurable" and record.facts
    eid = record.facts.episode_id
    assert record.error == (
        f"end state unreadable: grading channel GET /episodes/{eid}/state failed after 4 tries "
        "(last error: GradingTransportError: no response: the server closed the connection)"
    )
    assert suite.runtime.episodes == {}  # still closed


def test_a_close_that_keeps_failing_is_named_in_the_record(
    suite: EmbeddedSuite, embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    record, flaky = _attempt(
        suite,
        embedded_corpus(1),
        tmp_path / "runs",
        FlakyGrading(suite.grading_url, refuse={"close": ALWAYS}),
    )
    assert flaky.seen["close"] == 4
    assert record.status == "failed" and record.facts  # scored: only the close failed
    eid = record.facts.episode_id
    assert record.error == (
        f"episode {eid} was not closed: grading channel DELETE /episodes/{eid} failed after "
        "4 tries (last error: GradingTransportError: no response: the server closed the "
        "connection)"
    )
    assert list(suite.runtime.episodes) == [eid]  # really left open: the record says so
    suite.close_episode(eid)

"""The suite under load and under closes: nothing dropped, leaked, cut off or mixed up.

Real servers on loopback and real SQLite files. The load test drives episodes through 200
concurrent clients (create, bind, write, read state, close); $ENDSTATE_LOAD_EPISODES sets how
many (default 300 here; the benchmark runs 1,000).
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.suite.loadgen import drive
from endstate.envs.suite.runtime import Runtime
from endstate.envs.suite.world_db import private_template
from endstate.envs.world import generate_world

from .conftest import WORLD_SEED
from .envs_support import NONCE, Visitor

CLIENTS = 200
EPISODES = int(os.environ.get("ENDSTATE_LOAD_EPISODES", "300"))


@pytest.fixture
def own_suite(tmp_path: Path) -> Iterator[EmbeddedSuite]:
    """A suite of this test's own, its episode files in a folder the test can look into."""
    running = EmbeddedSuite.start(world_seed=WORLD_SEED, data_dir=tmp_path / "episodes")
    yield running
    running.stop()


def _episode_files(suite: EmbeddedSuite) -> list[Path]:
    return sorted(suite.runtime.data_dir.glob("*.sqlite*"))  # journals too


def test_200_concurrent_clients_drop_nothing_leak_nothing_and_never_bleed(
    own_suite: EmbeddedSuite,
) -> None:
    referral = own_suite.world.referrals[0].id
    result = asyncio.run(
        drive(
            own_suite.grading_url,
            own_suite.token,
            referral,
            episodes=EPISODES,
            clients=CLIENTS,
        )
    )
    assert result.dropped == 0, result.errors
    assert not result.wrong_status, result.wrong_status
    assert result.bleed == []
    assert result.episodes == EPISODES and result.writes == EPISODES
    assert result.requests == EPISODES * 6
    assert own_suite.runtime.episodes == {}
    assert _episode_files(own_suite) == []
    # However many episodes came and went, only the capped idle connections stay open.
    assert own_suite.runtime.connections.idle <= own_suite.runtime.connections.idle_cap


def test_an_idle_episode_holds_no_descriptor_past_the_cap(tmp_path: Path) -> None:
    with EmbeddedSuite.start(
        world_seed=WORLD_SEED, data_dir=tmp_path / "episodes", idle_connections=2
    ) as suite:
        infos = [suite.open_episode() for _ in range(6)]
        for info in infos:
            assert suite.state(info.id)["episode"]["id"] == info.id
        dbs = [suite.runtime.episodes[i.id].db for i in infos]
        assert [db.is_open for db in dbs] == [False] * 4 + [True] * 2  # most recent kept
        assert suite.health()["connections"] == {"idle_open": 2, "idle_cap": 2}
        v = Visitor(infos[0].start_urls["ehr"])  # the oldest is reopened on use
        assert v.get("/worklist").status_code == 200
        assert dbs[0].is_open and not dbs[2].is_open
        v.close()
        for info in infos:
            suite.close_episode(info.id)
        assert suite.runtime.connections.idle == 0


def _half_sent_note(suite: EmbeddedSuite, info: EpisodeInfo) -> tuple[socket.socket, bytes]:
    """Start a note's POST, sending its headers and all but the last byte of its body."""
    visitor = Visitor(info.start_urls["ehr"])
    rid = suite.world.referrals[0].id
    nonce = NONCE.search(visitor.get(f"/referrals/{rid}?tab=communications").text)
    assert nonce
    cookie = "; ".join(f"{k}={v}" for k, v in visitor.client.cookies.items())
    visitor.close()
    fields = {"subject": "in flight", "category": "general", "body": "b", "_nonce": nonce.group(1)}
    body = str(httpx.QueryParams(fields)).encode()
    url = urlsplit(suite.urls["ehr"])
    head = (
        f"POST /referrals/{rid}/notes HTTP/1.1\r\nHost: {url.netloc}\r\nCookie: {cookie}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    sock = socket.create_connection((url.hostname, url.port))
    sock.sendall(head + body[:-1])
    return sock, body[-1:]


def _response(sock: socket.socket) -> str:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    sock.close()
    return b"".join(chunks).decode(errors="replace")


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    for _ in range(1000):
        if condition():
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def test_closing_an_episode_mid_write_waits_for_the_write_then_closes(
    own_suite: EmbeddedSuite,
) -> None:
    info = own_suite.open_episode()
    db = own_suite.runtime.episodes[info.id].db
    sock, last = _half_sent_note(own_suite, info)
    _wait_for(lambda: db.in_use == 1, "the write to hold its episode")
    closing = threading.Thread(target=own_suite.close_episode, args=(info.id,))
    closing.start()
    _wait_for(lambda: info.id not in own_suite.runtime.episodes, "the close to begin")
    closing.join(timeout=0.3)
    assert closing.is_alive(), "the close must wait for the write in flight"
    assert db.path.exists() and not db.closed
    sock.sendall(last)
    answer = _response(sock)
    closing.join(timeout=30)
    assert not closing.is_alive()
    assert answer.startswith("HTTP/1.1 303"), answer[:300]  # saved, then redirected
    assert db.closed and not db.path.exists()
    state = httpx.get(
        f"{own_suite.grading_url}/episodes/{info.id}/state",
        headers={"Authorization": f"Bearer {own_suite.token}"},
    )
    assert state.status_code == 410 and "closed" in state.json()["error"]


def test_a_write_cut_off_by_a_close_that_gave_up_waiting_gets_a_clean_410(
    own_suite: EmbeddedSuite,
) -> None:
    own_suite.runtime.close_wait = 0.05
    info = own_suite.open_episode()
    db = own_suite.runtime.episodes[info.id].db
    sock, last = _half_sent_note(own_suite, info)
    _wait_for(lambda: db.in_use == 1, "the write to hold its episode")
    own_suite.close_episode(info.id)  # waits 0.05 s, then closes under the write
    assert db.closed and not db.path.exists()
    sock.sendall(last)
    answer = _response(sock)
    assert answer.startswith("HTTP/1.1 410"), answer[:300]
    assert "Episode closed" in answer and "closed database" not in answer
    assert _episode_files(own_suite) == []


def test_requests_for_a_closed_episode_get_json_404_or_410_never_a_500(
    own_suite: EmbeddedSuite,
) -> None:
    info = own_suite.open_episode()
    visitor = Visitor(info.start_urls["ehr"])
    own_suite.close_episode(info.id)
    own_suite.close_episode(info.id)  # a retried close: 410, taken as done
    auth = {"Authorization": f"Bearer {own_suite.token}"}
    for method, path in (("GET", "/state"), ("DELETE", "")):
        gone = httpx.request(
            method, f"{own_suite.grading_url}/episodes/{info.id}{path}", headers=auth
        )
        assert gone.status_code == 410 and gone.json()["error"] == f"episode {info.id} is closed"
        never = httpx.request(method, f"{own_suite.grading_url}/episodes/nope{path}", headers=auth)
        assert never.status_code == 404 and never.json()["error"] == "no such episode"
    page = visitor.get("/worklist")
    assert page.status_code == 401 and "not bound to an episode" in page.text
    visitor.close()


def test_a_create_with_an_idempotency_key_is_made_once(own_suite: EmbeddedSuite) -> None:
    auth = {"Authorization": f"Bearer {own_suite.token}"}
    url = f"{own_suite.grading_url}/episodes"
    headers = auth | {"Idempotency-Key": "run-1:task#1"}
    first = httpx.post(url, json={"seed": 5}, headers=headers)
    again = httpx.post(url, json={"seed": 5}, headers=headers)
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["episode_id"] == again.json()["episode_id"]
    assert first.json()["start_urls"] == again.json()["start_urls"]
    assert len(own_suite.runtime.episodes) == 1
    other = httpx.post(url, json={"seed": 6}, headers=headers)
    assert other.status_code == 422 and "another request" in other.json()["error"]
    own_suite.close_episode(first.json()["episode_id"])
    late = httpx.post(url, json={"seed": 5}, headers=headers)
    assert late.status_code == 422 and "which is closed" in late.json()["error"]
    assert own_suite.runtime.episodes == {}


def test_creates_racing_for_one_key_or_one_id_make_one_episode(own_suite: EmbeddedSuite) -> None:
    """The template's copy runs off the event loop, so creates overlap: a retry arriving
    while its key's first create is still copying is its replay, and a second create of an
    explicit id still being copied is refused, never given the same file."""
    auth = {"Authorization": f"Bearer {own_suite.token}"}

    async def race() -> tuple[list[httpx.Response], list[httpx.Response]]:
        async with httpx.AsyncClient(base_url=own_suite.grading_url, headers=auth) as client:
            keyed = [
                client.post("/episodes", json={"seed": 7}, headers={"Idempotency-Key": "k-1"})
                for _ in range(8)
            ]
            named = [client.post("/episodes", json={"episode_id": "ep-same"}) for _ in range(8)]
            return list(await asyncio.gather(*keyed)), list(await asyncio.gather(*named))

    keyed, named = asyncio.run(race())
    assert sorted(r.status_code for r in keyed) == [200] * 7 + [201]
    assert len({r.json()["episode_id"] for r in keyed}) == 1
    assert sorted(r.status_code for r in named) == [201] + [409] * 7
    assert len(own_suite.runtime.episodes) == 2
    assert len(_episode_files(own_suite)) == 2
    for eid in list(own_suite.runtime.episodes):
        own_suite.close_episode(eid)
    assert _episode_files(own_suite) == []


def test_a_create_cancelled_while_copying_leaves_no_file_and_frees_its_id(
    tmp_path: Path,
) -> None:
    world = generate_world(3)
    runtime = Runtime(world, private_template(world, tmp_path), tmp_path, testids=True)

    async def cancel_then_retry() -> str:
        create = asyncio.ensure_future(runtime.create_episode(episode_id="ep-x"))
        await asyncio.sleep(0)  # the copy has started in its thread
        create.cancel()
        with pytest.raises(asyncio.CancelledError):
            await create
        assert "ep-x" not in runtime.episodes
        for _ in range(500):  # the id stays claimed till the abandoned copy is taken back
            try:
                again = await runtime.create_episode(episode_id="ep-x")
                break
            except ValueError:
                await asyncio.sleep(0.01)
        # The abandoned copy, removed, took nothing of the new episode's file with it.
        assert [p.name for p in tmp_path.glob("*.sqlite*")] == ["ep-x.sqlite"]
        assert again.db.row("SELECT count(*) FROM events") is not None
        await runtime.retire(again.id)
        return again.id

    assert asyncio.run(cancel_then_retry()) == "ep-x"
    assert list(tmp_path.glob("*.sqlite*")) == []

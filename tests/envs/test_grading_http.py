"""The grading channel's own HTTP client, sync and async, against a real suite and against a
scripted server on loopback that answers in every shape a server can: chunked, cut off,
closed while idle, not HTTP at all, or never."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from endstate.envs.server import EmbeddedSuite, GradingRefused
from endstate.envs.suite.grading_http import (
    AsyncGradingHTTP,
    GradingHTTP,
    GradingTransportError,
)

Script = Callable[[socket.socket, int, bytes], None]  # (connection, request number, head)


def _answer(body: dict[str, Any], status: str = "200 OK", extra: str = "") -> bytes:
    data = json.dumps(body).encode()
    head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{extra}"
    return f"{head}Content-Length: {len(data)}\r\n\r\n".encode() + data


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            want = int(line.split(b":")[1])
            while len(body) < want:
                body += conn.recv(65536)
    return head


class _QuietServer(socketserver.ThreadingTCPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A script's dropped connection is on purpose; anything else is printed."""
        if not isinstance(sys.exc_info()[1], ConnectionAbortedError):
            super().handle_error(request, client_address)


class Scripted:
    """A loopback server answering each request as `script` says; counts connections."""

    def __init__(self, script: Script) -> None:
        self.connections = 0
        self.requests: list[bytes] = []
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                outer.connections += 1
                n = 0
                while True:
                    head = _read_request(self.request)
                    if not head:
                        return
                    outer.requests.append(head)
                    script(self.request, n, head)
                    n += 1

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def scripted() -> Iterator[Callable[[Script], Scripted]]:
    made: list[Scripted] = []

    def make(script: Script) -> Scripted:
        made.append(Scripted(script))
        return made[-1]

    yield make
    for server in made:
        server.close()


def _raise(conn: socket.socket) -> None:
    raise ConnectionAbortedError  # ends this connection's handler: the socket closes


def both(url: str, call: Callable[[Any], Any], timeout: float = 5) -> list[Any]:
    """The same call through the sync client and the async one."""
    sync = GradingHTTP(url, {"Authorization": "Bearer t"}, timeout=timeout)
    try:
        first = call(sync)
    finally:
        sync.close()

    async def run() -> Any:
        client = AsyncGradingHTTP(url, {"Authorization": "Bearer t"}, timeout=timeout)
        try:
            result = call(client)
            return await result if asyncio.iscoroutine(result) else result
        finally:
            await client.aclose()

    return [first, asyncio.run(run())]


def test_calls_to_a_real_suite_answer_as_its_channel_and_reuse_one_connection() -> None:
    with EmbeddedSuite.start() as suite:
        client = GradingHTTP(suite.grading_url, {"Authorization": f"Bearer {suite.token}"})
        opened = client.post("/episodes", json={"seed": 7})
        assert opened.status_code == 201 and not opened.is_error
        episode = opened.json()["episode_id"]
        state = client.get(f"/episodes/{episode}/state")
        assert state.json()["episode"] == {"id": episode, "seed": 7}
        assert state.headers["content-type"].startswith("application/json")
        assert client.delete(f"/episodes/{episode}").status_code == 204  # no body at all
        gone = client.get(f"/episodes/{episode}/state")
        assert gone.is_error and gone.status_code in (404, 410) and "error" in gone.json()
        assert len(client._idle) == 1  # one connection carried every call
        client.close()
        refused = GradingHTTP(suite.grading_url, {"Authorization": "Bearer wrong"})
        assert refused.get("/health").status_code == 401
        refused.close()
        with pytest.raises(GradingRefused, match="410"):
            suite.state(episode)


def test_a_chunked_response_is_read_whole(scripted: Callable[[Script], Scripted]) -> None:
    def chunked(conn: socket.socket, n: int, head: bytes) -> None:
        body = json.dumps({"rows": list(range(5000))}).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for i in range(0, len(body), 1000):
            piece = body[i : i + 1000]
            conn.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
        conn.sendall(b"0\r\n\r\n")

    server = scripted(chunked)
    for response in both(server.url, lambda c: c.get("/state")):
        assert response.json() == {"rows": list(range(5000))}


def test_a_connection_the_server_closed_while_idle_is_replaced_once(
    scripted: Callable[[Script], Scripted],
) -> None:
    def one_then_close(conn: socket.socket, n: int, head: bytes) -> None:
        conn.sendall(_answer({"n": n}))  # keep-alive implied, then closed anyway
        conn.shutdown(socket.SHUT_RDWR)

    server = scripted(one_then_close)

    def twice(client: Any) -> Any:
        if isinstance(client, GradingHTTP):
            first = client.get("/a").json()
            time.sleep(0.2)  # idle: the server has closed it meanwhile
            return [first, client.get("/b").json()]

        async def calls() -> list[Any]:
            first = (await client.get("/a")).json()
            await asyncio.sleep(0.2)
            return [first, (await client.get("/b")).json()]

        return calls()

    assert both(server.url, twice) == [[{"n": 0}, {"n": 0}], [{"n": 0}, {"n": 0}]]
    assert server.connections == 4  # each second call on a new connection
    assert len(server.requests) == 4  # and each call sent once


def test_a_call_is_sent_once_even_when_its_connection_drops(
    scripted: Callable[[Script], Scripted],
) -> None:
    def first_then_drop(conn: socket.socket, n: int, head: bytes) -> None:
        if n == 0:
            conn.sendall(_answer({"n": n}))
        else:
            _raise(conn)  # dropped with no answer: the caller's retries decide

    server = scripted(first_then_drop)
    sync = GradingHTTP(server.url, {})
    assert sync.get("/a").json() == {"n": 0}
    with pytest.raises(GradingTransportError, match="no response"):
        sync.get("/b")
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    ("answer", "match"),
    [
        (lambda c: c.sendall(_answer({"x": 1})[:-3]) or _raise(c), "mid-response"),
        (lambda c: c.sendall(b"SSH-2.0-OpenSSH\r\n\r\n") or _raise(c), "not HTTP"),
        (lambda c: _raise(c), "no response"),
    ],
    ids=["cut-off", "not-http", "closed"],
)
def test_a_broken_answer_is_a_transport_error_naming_what_broke(
    scripted: Callable[[Script], Scripted], answer: Callable[[socket.socket], None], match: str
) -> None:
    server = scripted(lambda conn, n, head: answer(conn))
    for client_kind in (GradingHTTP, AsyncGradingHTTP):
        with pytest.raises(GradingTransportError, match=match):
            if client_kind is GradingHTTP:
                GradingHTTP(server.url, {}).get("/x")
            else:
                asyncio.run(AsyncGradingHTTP(server.url, {}).get("/x"))


def test_a_server_that_never_answers_times_out(scripted: Callable[[Script], Scripted]) -> None:
    server = scripted(lambda conn, n, head: time.sleep(3))
    began = time.monotonic()
    with pytest.raises(GradingTransportError):
        GradingHTTP(server.url, {}, timeout=0.3).get("/x")
    with pytest.raises(GradingTransportError, match="no response within"):
        asyncio.run(AsyncGradingHTTP(server.url, {}, timeout=0.3).get("/x"))
    assert time.monotonic() - began < 2.5


def test_nothing_listening_is_a_transport_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(GradingTransportError, match="could not connect"):
        GradingHTTP(f"http://127.0.0.1:{port}", {}).get("/x")
    with pytest.raises(GradingTransportError, match="could not connect"):
        asyncio.run(AsyncGradingHTTP(f"http://127.0.0.1:{port}", {}).get("/x"))


def test_a_header_or_path_that_would_split_the_request_is_refused() -> None:
    client = GradingHTTP("http://127.0.0.1:9", {"X": "ok"})
    with pytest.raises(ValueError, match="line break"):
        client.get("/x", headers={"X-Key": "a\r\nInjected: yes"})
    with pytest.raises(ValueError, match="line break"):
        client.get("/x HTTP/1.1\r\nInjected: yes")
    with pytest.raises(ValueError, match="plain http"):
        GradingHTTP("https://example.org:443", {})


def test_concurrent_async_calls_each_get_their_own_answer(
    scripted: Callable[[Script], Scripted],
) -> None:
    def echo(conn: socket.socket, n: int, head: bytes) -> None:
        time.sleep(0.05)
        conn.sendall(_answer({"path": head.split(b" ")[1].decode()}))

    server = scripted(echo)

    async def run() -> list[Any]:
        client = AsyncGradingHTTP(server.url, {})
        try:
            answers = await asyncio.gather(*(client.get(f"/p{i}") for i in range(8)))
            return [a.json()["path"] for a in answers]
        finally:
            await client.aclose()

    assert asyncio.run(run()) == [f"/p{i}" for i in range(8)]


def test_a_connection_numbered_past_select_limit_is_kept_and_used_again(
    scripted: Callable[[Script], Scripted],
) -> None:
    """A long-lived process (a run of many attempts, a test worker) holds many descriptors;
    the idle check must still work when the connection's number is past 1024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"this machine allows {hard} open files; the case needs 1,200")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    filler = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        server = scripted(lambda conn, n, head: conn.sendall(_answer({"n": n})))
        client = GradingHTTP(server.url, {})
        assert [client.get("/a").json(), client.get("/b").json()] == [{"n": 0}, {"n": 1}]
        assert client._idle[0][0].fileno() >= 1024 and server.connections == 1
        client.close()
    finally:
        for fd in filler:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

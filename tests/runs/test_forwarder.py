"""The sandbox's forwarder reaching the harness's Unix sockets when their backlog is full.

A full backlog fails a non-blocking Unix connect at once, where TCP would queue it; had the
forwarder given up there, a connection flood would lose connections the gateway never saw,
neither relayed nor counted refused."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from pathlib import Path

import pytest

from endstate.sandbox.supervisor import _connect_unix


def listener(path: Path, backlog: int) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(backlog)
    return server


def test_connects_beyond_a_full_backlog_wait_for_the_server_to_accept(tmp_path: Path) -> None:
    server = listener(tmp_path / "gw.sock", backlog=1)
    accepted: list[socket.socket] = []

    def accept_late() -> None:
        time.sleep(0.3)  # every connect below is made while nothing is accepted
        for _ in range(8):
            accepted.append(server.accept()[0])

    worker = threading.Thread(target=accept_late)
    worker.start()

    async def flood() -> list[socket.socket]:
        return list(
            await asyncio.gather(*(_connect_unix(str(tmp_path / "gw.sock")) for _ in range(8)))
        )

    socks = asyncio.run(flood())
    worker.join(5)
    try:
        assert len(accepted) == 8
        for i, sock in enumerate(socks):
            sock.setblocking(True)
            sock.sendall(bytes([i]))
        assert sorted(conn.recv(1)[0] for conn in accepted) == list(range(8))
    finally:
        for s in [*socks, *accepted, server]:
            s.close()


def test_a_server_that_never_accepts_fails_the_connect_after_the_patience(tmp_path: Path) -> None:
    server = listener(tmp_path / "gw.sock", backlog=0)

    async def connect_all() -> None:
        held = []
        try:
            for _ in range(4):
                held.append(await _connect_unix(str(tmp_path / "gw.sock"), patience_s=0.2))
        finally:
            for sock in held:
                sock.close()

    started = time.monotonic()
    with pytest.raises(BlockingIOError):
        asyncio.run(connect_all())
    assert time.monotonic() - started < 3
    server.close()


def test_a_missing_socket_fails_at_once(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(FileNotFoundError):
        asyncio.run(_connect_unix(str(tmp_path / "absent.sock")))
    assert time.monotonic() - started < 1

"""A lean HTTP/1.1 client for the embedded suite's grading channel, sync and async.

Every attempt opens an episode, reads its end state and closes it over this channel, on
loopback. A general client (httpx) spent about a millisecond of Python on each such call,
more than the server took to answer; this one writes the request itself and lets
`httptools` (llhttp, in C, the parser the servers use) frame the response, `Content-Length`
or chunked. Connections are kept alive and pooled, one per call in flight; an idle one is
used again only while young and still open (not closed by the server meanwhile), so a call
is sent once. Any failure is a `GradingTransportError` for the caller's retries, which count
every try (`grading_client.py`). Plain HTTP only: the channel never leaves loopback.
"""

from __future__ import annotations

import asyncio
import json
import select
import socket
import threading
import time
from typing import Any, NoReturn
from urllib.parse import urlsplit

import httptools

# A connection idle this long is not used again: well inside the server's keep-alive, so a
# call never races the server closing it.
IDLE_S = 5.0


class GradingTransportError(ConnectionError):
    """The call got no complete response: dropped, refused, reset, timed out or garbled."""


class GradingResponse:
    """A whole response: status, reason, headers (names in lower case) and body."""

    def __init__(self, status_code: int, reason: str, headers: dict[str, str], body: bytes):
        self.status_code = status_code
        self.reason_phrase = reason
        self.headers = headers
        self.content = body

    @property
    def is_error(self) -> bool:
        return self.status_code >= 400

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


class _Reading:
    """httptools' callbacks: one response, as its bytes arrive."""

    def __init__(self) -> None:
        self.reason = ""
        self.headers: dict[str, str] = {}
        self.body: list[bytes] = []
        self.complete = False
        self.keep_alive = False
        self.parser: httptools.HttpResponseParser | None = None

    def on_status(self, status: bytes) -> None:
        self.reason = status.decode("latin-1")

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.complete = True
        # Asked here: once the parser has moved past the message, it no longer knows.
        assert self.parser is not None
        self.keep_alive = self.parser.should_keep_alive()


class _Response:
    """A response being read: feed it bytes until `complete`."""

    def __init__(self) -> None:
        self._reading = _Reading()
        self._parser = httptools.HttpResponseParser(self._reading)
        self._reading.parser = self._parser
        self.started = False  # some of it arrived: the call reached the server

    @property
    def complete(self) -> bool:
        return self._reading.complete

    def feed(self, data: bytes) -> None:
        if not data:
            raise GradingTransportError(
                "the server closed the connection mid-response"
                if self.started
                else "no response: the server closed the connection"
            )
        self.started = True
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            raise GradingTransportError(f"a response that is not HTTP: {exc}") from exc

    def whole(self) -> tuple[GradingResponse, bool]:
        """The response, and whether its connection may be used again."""
        r = self._reading
        response = GradingResponse(
            self._parser.get_status_code(), r.reason, r.headers, b"".join(r.body)
        )
        return response, r.keep_alive


class _Requests:
    """Request bytes for one server, with the headers every call carries."""

    def __init__(self, base_url: str, headers: dict[str, str]) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname or parts.port is None:
            raise ValueError(f"grading channel URL {base_url!r}: plain http://host:port only")
        self.host, self.port = parts.hostname, parts.port
        self.prefix = parts.path.rstrip("/")
        self.fixed = {"Host": f"{self.host}:{self.port}", **headers}

    def encode(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> bytes:
        if any(c in path for c in " \r\n\0"):
            raise ValueError(f"path {path!r}: a space or line break would split the request")
        lines = [f"{method} {self.prefix}{path} HTTP/1.1"]
        payload = b"" if body is None else json.dumps(body).encode()
        every = {**self.fixed, **(headers or {})}
        if body is not None:
            every["Content-Type"] = "application/json"
        if body is not None or method in ("POST", "PUT", "PATCH"):
            every["Content-Length"] = str(len(payload))
        for name, value in every.items():
            if any(c in name + value for c in "\r\n\0"):
                raise ValueError(f"header {name!r}: a line break would split the request")
            lines.append(f"{name}: {value}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload


class GradingHTTP:
    """The sync client (thread-safe: each call holds its own connection)."""

    def __init__(self, base_url: str, headers: dict[str, str], timeout: float = 60) -> None:
        self._requests = _Requests(base_url, headers)
        self._timeout = timeout
        self._idle: list[tuple[socket.socket, float]] = []  # and since when
        self._lock = threading.Lock()

    def get(self, path: str, headers: dict[str, str] | None = None) -> GradingResponse:
        return self.request("GET", path, headers=headers)

    def post(
        self, path: str, json: Any = None, headers: dict[str, str] | None = None
    ) -> GradingResponse:
        return self.request("POST", path, json, headers)

    def delete(self, path: str, headers: dict[str, str] | None = None) -> GradingResponse:
        return self.request("DELETE", path, headers=headers)

    def request(
        self, method: str, path: str, json: Any = None, headers: dict[str, str] | None = None
    ) -> GradingResponse:
        data = self._requests.encode(method, path, json, headers)
        conn = self._kept()
        if conn is None:
            try:
                conn = socket.create_connection(
                    (self._requests.host, self._requests.port), timeout=self._timeout
                )
            except OSError as exc:
                raise GradingTransportError(f"could not connect: {exc}") from exc
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self._exchange(conn, data)

    def _exchange(self, conn: socket.socket, data: bytes) -> GradingResponse:
        response = _Response()
        try:
            conn.sendall(data)
            while not response.complete:
                response.feed(conn.recv(65536))
        except BaseException as exc:  # cut off, cancelled or failed: the connection is spent
            conn.close()
            _raise_failed(response, exc)
        whole, again = response.whole()
        if again:
            with self._lock:
                self._idle.append((conn, time.monotonic()))
        else:
            conn.close()
        return whole

    def _kept(self) -> socket.socket | None:
        """An idle connection young and open enough to use again (others are closed). One
        with something to read while idle was closed by the server (or is out of step)."""
        with self._lock:
            while self._idle:
                conn, since = self._idle.pop()
                if time.monotonic() - since < IDLE_S and _quiet(conn):
                    return conn
                conn.close()
        return None

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn, _ in idle:
            conn.close()


def _quiet(conn: socket.socket) -> bool:
    """Nothing to read on an idle connection: not closed by the server, not out of step.
    (poll, not select: a long-lived process's descriptors pass select's limit of 1024.)"""
    idle = select.poll()
    idle.register(conn, select.POLLIN)
    return not idle.poll(0)


_Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class AsyncGradingHTTP:
    """The async client: the same calls, never blocking the event loop."""

    def __init__(self, base_url: str, headers: dict[str, str], timeout: float = 60) -> None:
        self._requests = _Requests(base_url, headers)
        self._timeout = timeout
        self._idle: list[tuple[_Stream, float]] = []  # and since when

    async def get(self, path: str, headers: dict[str, str] | None = None) -> GradingResponse:
        return await self.request("GET", path, headers=headers)

    async def post(
        self, path: str, json: Any = None, headers: dict[str, str] | None = None
    ) -> GradingResponse:
        return await self.request("POST", path, json, headers)

    async def delete(self, path: str, headers: dict[str, str] | None = None) -> GradingResponse:
        return await self.request("DELETE", path, headers=headers)

    async def request(
        self, method: str, path: str, json: Any = None, headers: dict[str, str] | None = None
    ) -> GradingResponse:
        data = self._requests.encode(method, path, json, headers)
        try:
            async with asyncio.timeout(self._timeout):
                return await self._send(data)
        except TimeoutError as exc:
            raise GradingTransportError(f"no response within {self._timeout:g}s") from exc

    async def _send(self, data: bytes) -> GradingResponse:
        conn = self._kept()
        if conn is None:
            try:
                conn = await asyncio.open_connection(self._requests.host, self._requests.port)
            except OSError as exc:
                raise GradingTransportError(f"could not connect: {exc}") from exc
        reader, writer = conn
        response = _Response()
        try:
            writer.write(data)
            while not response.complete:
                response.feed(await reader.read(65536))
        except BaseException as exc:  # cut off, cancelled or failed: the connection is spent
            writer.close()
            _raise_failed(response, exc)
        whole, again = response.whole()
        if again:
            self._idle.append((conn, time.monotonic()))
        else:
            writer.close()
        return whole

    def _kept(self) -> _Stream | None:
        """An idle connection young and open enough to use again (others are closed)."""
        while self._idle:
            (reader, writer), since = self._idle.pop()
            fresh = time.monotonic() - since < IDLE_S
            if fresh and not reader.at_eof() and not writer.is_closing():
                return reader, writer
            writer.close()
        return None

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for (_, writer), _ in idle:
            writer.close()


def _raise_failed(response: _Response, exc: BaseException) -> NoReturn:
    """A socket's error as the transport error it is (with how far the response got);
    anything else (a cancellation, a timeout, a transport error already) as it is."""
    if isinstance(exc, OSError) and not isinstance(exc, GradingTransportError):
        got = "the response was cut off" if response.started else "no response"
        raise GradingTransportError(f"{got}: {exc}") from exc
    raise exc

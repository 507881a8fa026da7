"""Reading an agent's own browser's localStorage over its DevTools endpoint, standard library only.

It runs inside the sandbox, beside the supervisor (which imports it by file, as nothing of
endstate is visible there), once the agent has ended and before the sandbox is torn down: for
environments whose end state lives in the browser the agent drives. The agent could have
written that storage by script; the harness says so in every report of such a run.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

MAX_MESSAGE = 64 * 1024 * 1024  # a reply larger than this is refused, not buffered


class StorageUnreadable(Exception):
    """The browser could not be asked (gone, no page, protocol error)."""


READ_PATH = "/__endstate/state-read"  # answered here with a blank page, never by the site
BLANK = base64.b64encode(b"<!doctype html><title>endstate storage read</title>").decode()
# localStorage in the browser's own key order, as a page script iterating it sees it.
ENTRIES = (
    "JSON.stringify(Array.from({length: localStorage.length}, (_, i) => "
    "[localStorage.key(i), localStorage.getItem(localStorage.key(i))]))"
)


def read_local_storage(
    endpoint: str, origins: list[str], timeout: float = 10.0
) -> dict[str, list[list[str]]]:
    """Every localStorage entry of each origin, as [key, value] pairs in the browser's order.

    Each origin is read in a tab of our own opened on it at READ_PATH, which the tab answers
    itself (the DevTools Fetch domain) with a blank page: no code of the site runs.
    """
    found: dict[str, list[list[str]]] = {}
    for origin in origins:
        target_id, url = _new_tab(endpoint, timeout)
        try:
            with _WebSocket(url, timeout) as ws:
                found[origin] = _read_origin(ws, origin.rstrip("/"))
        finally:
            _close_tab(endpoint, target_id, timeout)
    return found


def _read_origin(ws: _WebSocket, origin: str) -> list[list[str]]:
    def fulfil(event: dict[str, Any]) -> None:
        if event.get("method") == "Fetch.requestPaused":
            request_id = event["params"]["requestId"]
            ws.send("Fetch.fulfillRequest", {
                "requestId": request_id, "responseCode": 200, "body": BLANK,
                "responseHeaders": [{"name": "Content-Type", "value": "text/html"}],
            })  # fmt: skip

    ws.call("Fetch.enable", {"patterns": [{"urlPattern": f"*{READ_PATH}*"}]})
    ws.call("Page.navigate", {"url": origin + READ_PATH}, on_event=fulfil)
    reply = ws.call(
        "Runtime.evaluate",
        {"expression": ENTRIES, "returnByValue": True, "awaitPromise": False},
        on_event=fulfil,
    )
    value = reply.get("result", {}).get("value")
    if not isinstance(value, str):
        raise StorageUnreadable(f"localStorage of {origin} could not be read: {reply}")
    entries = json.loads(value)
    return [[str(k), str(v)] for k, v in entries]


def _new_tab(endpoint: str, timeout: float) -> tuple[str, str]:
    try:
        request = urllib.request.Request(endpoint + "/json/new?about:blank", method="PUT")
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            target = json.load(reply)
        return str(target["id"]), str(target["webSocketDebuggerUrl"])
    except (OSError, ValueError, KeyError) as exc:
        raise StorageUnreadable(f"DevTools endpoint {endpoint}: {exc}") from None


def _close_tab(endpoint: str, target_id: str, timeout: float) -> None:
    try:
        with urllib.request.urlopen(f"{endpoint}/json/close/{target_id}", timeout=timeout):
            pass
    except OSError:
        pass  # the sandbox is torn down next anyway


class _WebSocket:
    """The few parts of RFC 6455 a DevTools session needs: text frames, masked from the client."""

    def __init__(self, url: str, timeout: float) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.path = parts.path + (f"?{parts.query}" if parts.query else "")
        self.timeout = timeout
        self.sock: socket.socket | None = None
        self.next_id = 0

    def __enter__(self) -> _WebSocket:
        try:
            self.sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
            key = base64.b64encode(os.urandom(16)).decode()
            self.sock.sendall(
                (
                    f"GET {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = self.sock.recv(1)
                if not chunk or len(head) > 65536:
                    raise StorageUnreadable("DevTools WebSocket handshake failed")
                head += chunk
            if b" 101 " not in head.split(b"\r\n", 1)[0]:
                raise StorageUnreadable("DevTools WebSocket handshake refused")
        except OSError as exc:
            raise StorageUnreadable(f"DevTools WebSocket: {exc}") from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.sock is not None:
            self.sock.close()

    def send(self, method: str, params: dict[str, Any]) -> int:
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}).encode())
        return self.next_id

    def call(
        self,
        method: str,
        params: dict[str, Any],
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> dict[str, Any]:
        """Send a command and wait for its reply, handing events met meanwhile to `on_event`."""
        wanted = self.send(method, params)
        while True:
            message = json.loads(self._receive())
            if "method" in message and on_event is not None:
                on_event(message)
            if message.get("id") != wanted:
                continue  # an event, or a reply to something else
            if "error" in message:
                raise StorageUnreadable(f"{method}: {message['error'].get('message')}")
            result = message.get("result", {})
            return result if isinstance(result, dict) else {}

    def _send(self, payload: bytes) -> None:
        assert self.sock is not None
        mask = os.urandom(4)
        size = len(payload)
        if size < 126:
            head = struct.pack("!BB", 0x81, 0x80 | size)
        elif size < 65536:
            head = struct.pack("!BBH", 0x81, 0x80 | 126, size)
        else:
            head = struct.pack("!BBQ", 0x81, 0x80 | 127, size)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        try:
            self.sock.sendall(head + mask + body)
        except OSError as exc:
            raise StorageUnreadable(f"DevTools WebSocket: {exc}") from None

    def _receive(self) -> bytes:
        """One whole message (continuation frames joined); pings and pongs skipped."""
        message = b""
        while True:
            first, second = self._exactly(2)
            opcode, size = first & 0x0F, second & 0x7F
            if size == 126:
                (size,) = struct.unpack("!H", self._exactly(2))
            elif size == 127:
                (size,) = struct.unpack("!Q", self._exactly(8))
            if len(message) + size > MAX_MESSAGE:
                raise StorageUnreadable(f"a DevTools reply over {MAX_MESSAGE} bytes")
            mask = self._exactly(4) if second & 0x80 else b""
            data = self._exactly(size)
            if mask:
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
            if opcode == 0x8:
                raise StorageUnreadable("the browser closed the DevTools session")
            if opcode in (0x9, 0xA):
                continue
            message += data
            if first & 0x80:
                return message

    def _exactly(self, n: int) -> bytes:
        assert self.sock is not None
        out = bytearray()
        try:
            while len(out) < n:
                chunk = self.sock.recv(min(n - len(out), 1 << 20))
                if not chunk:
                    raise StorageUnreadable("the DevTools session ended mid-message")
                out += chunk
        except OSError as exc:
            raise StorageUnreadable(f"DevTools WebSocket: {exc}") from None
        return bytes(out)

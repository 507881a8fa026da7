"""The agent's way to the services it needs (a model's API), and to nothing else.

A sandbox's network reaches only the environment's agent-facing ports. An agent that calls a
hosted or local model names it with `--agent-egress HOST:PORT`; the harness then serves this
proxy on a Unix socket of the gateway, the sandbox sees it as `HTTPS_PROXY`/`HTTP_PROXY`, and
the proxy opens tunnels (CONNECT) or forwards plain HTTP requests to the listed host and port
only. Everything else gets a 403 and is counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from endstate.errors import EndstateError
from endstate.sandbox.relay import BACKLOG, relay

HEAD_LIMIT = 32 * 1024


@dataclass(frozen=True)
class Destination:
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def parse_destinations(values: list[str], forbidden: list[str]) -> list[Destination]:
    """`HOST:PORT` entries; one that is a harness-only address is refused outright."""
    out: list[Destination] = []
    barred = {(urlsplit(u).hostname, urlsplit(u).port) for u in forbidden}
    for value in values:
        host, sep, port = value.rpartition(":")
        host = host.strip("[]").lower()
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise EndstateError(f"--agent-egress {value!r}: expected HOST:PORT")
        if (host, int(port)) in barred or (
            host in ("localhost", "::1") and ("127.0.0.1", int(port)) in barred
        ):
            raise EndstateError(f"--agent-egress {value!r}: that is the harness's grading channel")
        out.append(Destination(host, int(port)))
    return out


def _target(method: str, target: str) -> tuple[str, int, str] | None:
    """(host, port, origin-form path) of a proxy request; None if it is not one."""
    if method == "CONNECT":
        host, sep, port = target.rpartition(":")
        if not sep or not port.isdigit():
            return None
        return host.strip("[]").lower(), int(port), ""
    parts = urlsplit(target)
    if parts.scheme != "http" or not parts.hostname:
        return None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.hostname.lower(), parts.port or 80, path


@dataclass
class EgressProxy:
    allowed: list[Destination]
    socket_path: Path
    refused: int = 0
    opened: int = 0
    _server: asyncio.Server | None = field(default=None, repr=False)

    async def start(self) -> None:
        self._server = await asyncio.start_unix_server(
            self._handle, path=str(self.socket_path), backlog=BACKLOG
        )
        os.chmod(self.socket_path, 0o666)

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        if len(head) > HEAD_LIMIT:
            await self._refuse(writer, "400 Bad Request", "request head too large")
            return
        lines = head.decode("latin-1").split("\r\n")
        try:
            method, target, version = lines[0].split(" ", 2)
        except ValueError:
            await self._refuse(writer, "400 Bad Request", "not an HTTP request")
            return
        found = _target(method, target)
        if found is None:
            await self._refuse(writer, "400 Bad Request", "not a proxy request")
            return
        host, port, path = found
        if Destination(host, port) not in self.allowed:
            self.refused += 1
            await self._refuse(writer, "403 Forbidden", f"egress to {host}:{port} is not allowed")
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(host, port)
        except OSError as exc:
            await self._refuse(writer, "502 Bad Gateway", f"{host}:{port}: {exc.strerror or exc}")
            return
        self.opened += 1
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            kept = [
                line
                for line in lines[1:]
                if line and not line.lower().startswith(("proxy-", "connection:"))
            ]
            request = [f"{method} {path} {version}", *kept, "Connection: close", "", ""]
            up_writer.write("\r\n".join(request).encode("latin-1"))
        await asyncio.gather(relay(reader, up_writer), relay(up_reader, writer))

    @staticmethod
    async def _refuse(writer: asyncio.StreamWriter, status: str, why: str) -> None:
        body = f"endstate: {why}\n".encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(Exception):
            await writer.drain()
            writer.close()

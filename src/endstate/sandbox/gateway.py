"""The only way out of a sandbox: one Unix socket per agent-facing port of the environment.

A sandbox has its own network namespace with nothing but loopback. Inside it, the supervisor
listens on each agent-facing port and relays to a socket in its gateway's folder, which is
mounted into the sandbox; here each socket relays to the real port on the harness's loopback.
The grading channel has no socket, so no sandbox can reach it, whatever it scans. Each sandbox
has a gateway of its own, so one cannot crowd out another and egress is counted per attempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import shutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from endstate.errors import EndstateError
from endstate.sandbox.egress import Destination, EgressProxy
from endstate.sandbox.relay import BACKLOG, relay
from endstate.scratch import scratch

LOOPBACK = ("127.0.0.1", "localhost", "::1")
_SOURCES = itertools.count()


def source_address() -> str:
    """A loopback address of one gateway's own, which its connections to the environment come
    from: a server that shares itself fairly among clients tells this sandbox's requests from
    another's by it, even requests bound to no episode (all of 127/8 is this machine's)."""
    n = next(_SOURCES) % (250 * 256)
    return f"127.77.{n // 250}.{n % 250 + 2}"


Reader = asyncio.StreamReader
Writer = asyncio.StreamWriter


@dataclass(frozen=True)
class Route:
    """One agent-facing port: the sandbox's 127.0.0.1:port relays to host:port via socket."""

    host: str
    port: int
    socket: Path


def agent_ports(urls: list[str]) -> list[tuple[str, int]]:
    """The (host, port) pairs of the environment's agent-facing URLs; loopback only."""
    out: list[tuple[str, int]] = []
    for url in urls:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if host not in LOOPBACK:
            raise EndstateError(
                f"agent-facing URL {url!r}: the sandbox can only relay to loopback ports"
            )
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if port < 1024:  # the sandbox user cannot listen there in its own namespace
            raise EndstateError(
                f"agent-facing URL {url!r}: ports below 1024 cannot be offered in a sandbox"
            )
        if (host, port) not in out:
            out.append((host, port))
    return out


@dataclass(frozen=True)
class Network:
    """What a sandbox's network reaches: the agent-facing ports, and any named egress."""

    ports: tuple[tuple[str, int], ...]
    egress: tuple[Destination, ...] = ()
    max_connections: int = 256  # at once, per sandbox: a flood cannot starve the harness

    @property
    def egress_port(self) -> int | None:
        """Where the sandbox sees the egress proxy: the first free port from 3128."""
        if not self.egress:
            return None
        taken = {p for _, p in self.ports}
        return next(p for p in range(3128, 65536) if p not in taken)


class Gateway:
    """One sandbox's way out: Unix-socket relays to its network's loopback ports, and the
    egress proxy when the agent may reach named outside services."""

    def __init__(self, network: Network) -> None:
        self.network = network
        self.folder = scratch("endstate-gateway-")
        self.routes = [Route(h, p, self.folder / f"{p}.sock") for h, p in network.ports]
        self.source = source_address()
        self._servers: list[asyncio.Server] = []
        self.active = 0
        self.refused = 0  # connections beyond max_connections
        self.egress: EgressProxy | None = None
        if network.egress:
            self.egress = EgressProxy(list(network.egress), self.folder / "egress.sock")

    async def start(self) -> None:
        os.chmod(self.folder, 0o755)  # the sandbox user must reach the sockets, and only them
        for route in self.routes:
            server = await asyncio.start_unix_server(
                self._handler(route), path=str(route.socket), backlog=BACKLOG
            )
            os.chmod(route.socket, 0o666)
            self._servers.append(server)
        if self.egress is not None:
            await self.egress.start()

    def _handler(self, route: Route) -> Callable[[Reader, Writer], Awaitable[None]]:
        async def handle(reader: Reader, writer: Writer) -> None:
            if self.active >= self.network.max_connections:
                self.refused += 1
                writer.close()
                return
            self.active += 1
            try:
                local = (self.source, 0) if route.host == "127.0.0.1" else None
                up_reader, up_writer = await asyncio.open_connection(
                    route.host, route.port, local_addr=local
                )
            except OSError:
                writer.close()
                return
            finally:
                self.active -= 1
            self.active += 1
            try:
                await asyncio.gather(relay(reader, up_writer), relay(up_reader, writer))
            finally:
                self.active -= 1

        return handle

    async def aclose(self) -> None:
        if self.egress is not None:
            await self.egress.aclose()
        for server in self._servers:
            server.close()
        for server in self._servers:
            with contextlib.suppress(Exception):
                await server.wait_closed()
        shutil.rmtree(self.folder, ignore_errors=True)

"""How a client of the scheduling service is bound to its episode — the session cookie the
start URL set, or `Authorization: Bearer <session>` for clients that keep no cookies — and
the `/mcp` endpoint, which loads the MCP SDK on its first request."""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from endstate.envs.web import cookie_name

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

SYSTEM = "scheduling"


def session_id(request: Request) -> str | None:
    """The episode session a request carries: a bearer header, or its cookie."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value:
        return value
    return request.cookies.get(cookie_name(SYSTEM))


@dataclass
class _Running:
    manager: StreamableHTTPSessionManager
    ready: asyncio.Event
    task: asyncio.Task[Any] | None = None  # kept: a task nobody references can be collected


class MCPEndpoint:
    """The ASGI app mounted at `/mcp`: a stateless, JSON-answering MCP server. One session
    manager per event loop (each running suite serves from its own), started on the first
    request: the suite's servers run without a lifespan to start it in."""

    def __init__(self) -> None:
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Running] = (
            weakref.WeakKeyDictionary()
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from endstate.envs.systems.scheduling import mcp_server

        loop = asyncio.get_running_loop()
        found = self._by_loop.get(loop)
        if found is None:
            found = self._by_loop[loop] = _Running(mcp_server.manager(), asyncio.Event())
            found.task = loop.create_task(mcp_server.keep_running(found.manager, found.ready))
        await found.ready.wait()
        await found.manager.handle_request(scope, receive, send)

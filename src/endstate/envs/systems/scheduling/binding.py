"""The `/mcp` endpoint, which loads the MCP SDK on its first request (a client is bound to its
episode as any other: `sessions.session_id`)."""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.types import Receive, Scope, Send

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager


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

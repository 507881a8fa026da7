"""The scheduling tools over the Model Context Protocol (the `mcp` SDK, streamable HTTP at
`/mcp`), so any MCP client can act: the same tools, the same service, the same trace.

A client is bound to its episode like any other: by the session cookie the start URL set,
or by `Authorization: Bearer <session>` (the session is in `GET /` once bound). The SDK's
session manager needs a running task group; the suite's servers run without a lifespan, so
it is started on the first MCP request and lives as long as the server's event loop.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from dataclasses import dataclass
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from endstate.envs.database import EpisodeClosed
from endstate.envs.descriptors import DescriptorsExhausted
from endstate.envs.systems.scheduling.participant import user_turn
from endstate.envs.systems.scheduling.service import SchedulingService
from endstate.envs.systems.scheduling.tools import TOOLS, USER_TOOLS
from endstate.envs.web import cookie_name, runtime_of

SYSTEM = "scheduling"


def session_id(request: Request) -> str | None:
    """The episode session a request carries: its cookie, or a bearer header."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value:
        return value
    return request.cookies.get(cookie_name(SYSTEM))


def _tools() -> list[types.Tool]:
    out = []
    for spec in TOOLS:
        schema = spec.openai()["function"]["parameters"]
        out.append(types.Tool(name=spec.name, description=spec.description, input_schema=schema))
    return out


def _answer(found: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(found))],
        structured_content=found,
        is_error=found.get("status") == "refused",
    )


async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_tools())


async def _call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    request: Request | None = ctx.request
    if request is None:
        return _answer({"status": "refused", "code": "no_session", "message": "no HTTP request"})
    rt = runtime_of(request)
    session = rt.session(SYSTEM, session_id(request))
    if session is None:
        return _answer(
            {
                "status": "refused",
                "code": "no_session",
                "message": "not bound to an episode: open your start URL first",
            }
        )
    arguments = dict(params.arguments or {})
    key = arguments.pop("idempotency_key", None)
    episode = rt.episodes[session.episode_id]
    try:
        with episode.db.lease():
            conn = episode.db.conn
            if params.name in USER_TOOLS:
                return _answer(await user_turn(rt, conn, params.name, arguments))
            return _answer(
                SchedulingService(conn).call(
                    params.name, arguments, key if isinstance(key, str) else None
                )
            )
    except EpisodeClosed:
        return _answer(
            {"status": "refused", "code": "episode_closed", "message": "this episode has ended"}
        )
    except DescriptorsExhausted:
        return _answer({"status": "refused", "code": "busy", "message": "try again"})


def _manager() -> StreamableHTTPSessionManager:
    server: Server[Any] = Server(
        "endstate-scheduling", on_list_tools=_list_tools, on_call_tool=_call_tool
    )
    return StreamableHTTPSessionManager(
        app=server,
        json_response=True,
        stateless=True,
        security_settings=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        ),
    )


@dataclass
class _Running:
    manager: StreamableHTTPSessionManager
    ready: asyncio.Event
    task: asyncio.Task[None] | None = None  # kept: a task nobody references can be collected


class MCPEndpoint:
    """The ASGI app mounted at `/mcp`: a stateless, JSON-answering MCP server. One session
    manager per event loop: each running suite serves from its own loop."""

    def __init__(self) -> None:
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Running] = (
            weakref.WeakKeyDictionary()
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        found = self._by_loop.get(loop)
        if found is None:
            found = self._by_loop[loop] = _Running(_manager(), asyncio.Event())
            found.task = loop.create_task(_keep_running(found.manager, found.ready))
        await found.ready.wait()
        await found.manager.handle_request(scope, receive, send)


async def _keep_running(manager: StreamableHTTPSessionManager, ready: asyncio.Event) -> None:
    async with manager.run():
        ready.set()
        await asyncio.Event().wait()  # until the server's loop ends

"""The scheduling tools over the Model Context Protocol (the `mcp` SDK, streamable HTTP at
`/mcp`), so any MCP client can act: the same tools, the same service, the same trace.

Imported on the first MCP request only (binding.MCPEndpoint): the SDK takes seconds to
import, which every CLI start and every episode server would otherwise pay.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request

from endstate.envs.database import EpisodeClosed
from endstate.envs.descriptors import DescriptorsExhausted
from endstate.envs.systems.scheduling.binding import session_id
from endstate.envs.systems.scheduling.entrance import serve
from endstate.envs.systems.scheduling.tools import TOOLS
from endstate.envs.web import runtime_of

SYSTEM = "scheduling"


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
    key = arguments.pop("idempotency_key", None)  # an argument here, an envelope field in HTTP
    episode = rt.episodes[session.episode_id]
    try:
        with episode.db.lease():
            return _answer(await serve(rt, episode.db.conn, params.name, arguments, key))
    except EpisodeClosed:
        return _answer(
            {"status": "refused", "code": "episode_closed", "message": "this episode has ended"}
        )
    except DescriptorsExhausted:
        return _answer({"status": "refused", "code": "busy", "message": "try again"})


def manager() -> StreamableHTTPSessionManager:
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


async def keep_running(manager: StreamableHTTPSessionManager, ready: asyncio.Event) -> None:
    """Run the session manager's task group until the server's loop ends."""
    async with manager.run():
        ready.set()
        await asyncio.Event().wait()

"""The scheduling service over HTTP: the start URL binds a client to its episode (a cookie,
as for every system), `GET /tools` lists the tools, `POST /tools/{name}` calls one with
`{"arguments": {...}, "idempotency_key": "..."}` and answers JSON. There are no pages to
render, so no page nonce: the session cookie and the service's own rules are the gate."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from endstate.envs.shared.web import runtime_of, start_endpoint
from endstate.envs.suite.database import EpisodeClosed
from endstate.envs.suite.descriptors import DescriptorsExhausted
from endstate.envs.systems.scheduling.binding import MCPEndpoint
from endstate.envs.systems.scheduling.entrance import serve
from endstate.envs.systems.scheduling.service import SchedulingService
from endstate.envs.systems.scheduling.sessions import session_id
from endstate.envs.systems.scheduling.surface import refusal
from endstate.envs.systems.scheduling.tools import TOOLS
from endstate.jsonfile import JsonRefused, decode

SYSTEM = "scheduling"
# The HTTP status of a refusal that is about the request itself, not the service's rules.
HTTP_STATUS = {"unknown_tool": 404, "bad_request": 400}


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"status": "refused", "code": code, "message": message}, status)


async def tool_list(request: Request) -> Response:
    return JSONResponse({"tools": [t.openai()["function"] | {"write": t.write} for t in TOOLS]})


def request_body(raw: bytes) -> tuple[Any, Any] | str:
    """(arguments, idempotency key) as sent, or why the body is not a request at all. Read
    strictly: nothing in it may raise past here (a nesting bomb, a 5,000-digit integer) or be
    unstorable (a lone surrogate, `NaN`, `1e999`)."""
    try:
        body = decode(raw or b"{}", strict=True)
    except JsonRefused as exc:
        return f"the body is not usable JSON: {exc}"
    if not isinstance(body, dict):
        return "the body must be a JSON object"
    return body.get("arguments", {}), body.get("idempotency_key")


async def call_tool(request: Request) -> Response:
    name = request.path_params["name"]
    rt = runtime_of(request)
    session = rt.session(SYSTEM, session_id(request))
    if session is None:
        return _error(401, "no_session", "not bound to an episode: open your start URL first")
    parsed = request_body(await request.body())
    episode = rt.episodes[session.episode_id]
    try:
        with episode.db.lease():
            conn = episode.db.conn
            if isinstance(parsed, str):  # still a request to this episode: traced
                answer = refusal("bad_request", parsed)
                SchedulingService(conn).refuse(name, {}, None, answer)
            else:
                answer = await serve(rt, conn, name, *parsed)
    except EpisodeClosed:
        return _error(410, "episode_closed", "this episode has ended")
    except DescriptorsExhausted:
        return _error(503, "busy", "the server is at capacity; try again")
    return JSONResponse(answer, HTTP_STATUS.get(str(answer.get("code")), 200))


async def home(request: Request) -> Response:
    bound = runtime_of(request).session(SYSTEM, session_id(request))
    mcp: dict[str, Any] = {"url": f"{request.base_url}mcp/"}
    if bound is not None:  # how an MCP client that keeps no cookies binds to this episode
        mcp["headers"] = {"Authorization": f"Bearer {bound.sid}"}
    return JSONResponse(
        {
            "mcp": mcp,
            "service": "Mercyvale scheduling service",
            "tools": "GET /tools",
            "call": 'POST /tools/{name} with {"arguments": {...}, "idempotency_key": "..."}',
        }
    )


ROUTES = [
    Route("/start", start_endpoint(SYSTEM, "/")),
    Route("/", home),
    Route("/tools", tool_list),
    Route("/tools/{name}", call_tool, methods=["POST"]),
    Mount("/mcp", MCPEndpoint()),
]

"""How a client of the scheduling service is bound to its episode: the session cookie the start
URL set, or `Authorization: Bearer <session>` for clients that keep no cookies (MCP clients)."""

from __future__ import annotations

from starlette.requests import Request

from endstate.envs.suite.cookies import cookie_name

SYSTEM = "scheduling"


def session_id(request: Request) -> str | None:
    """The episode session a request carries: a bearer header, or its cookie."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value:
        return value
    return request.cookies.get(cookie_name(SYSTEM))

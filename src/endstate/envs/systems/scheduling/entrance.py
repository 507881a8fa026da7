"""Where an agent's request lands, whichever transport carried it (app.py over HTTP,
mcp_server.py over MCP): the one gate (surface.admit), then the service or the simulated
user. Every request is recorded as the agent's, the ones refused at the gate included; a
user's answer is recorded under the agent's request, the user's own approval as its own."""

from __future__ import annotations

import sqlite3
from typing import Any

from endstate.envs.runtime import Runtime
from endstate.envs.systems.scheduling.participant import user_turn
from endstate.envs.systems.scheduling.service import SchedulingService
from endstate.envs.systems.scheduling.surface import admit
from endstate.envs.systems.scheduling.tools import USER_TOOLS


async def serve(
    rt: Runtime, conn: sqlite3.Connection, tool: Any, arguments: Any, key: Any
) -> dict[str, Any]:
    """The agent's answer to one request, recorded in the episode's trace."""
    service = SchedulingService(conn)
    if tool not in USER_TOOLS:
        return service.call(tool, arguments, key)
    refused = admit(tool, arguments, key)
    if refused is not None:
        service.refuse(tool, arguments, key, refused)
        return refused
    answer = await user_turn(rt, conn, tool, arguments)
    service.trace(tool, arguments, answer)
    return answer

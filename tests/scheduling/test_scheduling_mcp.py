"""The scheduling tools over MCP, through the `mcp` SDK's own client: the same tools as over
HTTP, bound to the episode by its session, recorded in the same trace."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from endstate.envs import EmbeddedSuite
from endstate.envs.systems.scheduling.tools import TOOL_NAMES


async def _session_calls(url: str, headers: dict[str, str]) -> dict[str, Any]:
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
        found = await session.call_tool("find_patient", {"name": "Victor Chen"})
        hold = {"patient_id": "SP0004", "slot_id": "SL-PR02-0304-1130"}
        keyless = await session.call_tool("hold_slot", hold)
        held = await session.call_tool("hold_slot", hold | {"idempotency_key": "h1"})
        return {
            "tools": [t.name for t in listed.tools],
            "schema": {t.name: t.input_schema for t in listed.tools},
            "found": found.structured_content,
            "keyless": (keyless.is_error, keyless.structured_content),
            "held": (held.is_error, held.structured_content),
        }


def test_an_mcp_client_lists_and_calls_the_tools_of_its_own_episode(
    suite: EmbeddedSuite,
) -> None:
    info = suite.open_episode()
    try:
        with httpx.Client(follow_redirects=True) as web:
            mcp = web.get(info.start_urls["scheduling"]).json()["mcp"]
        got = asyncio.run(_session_calls(mcp["url"], mcp["headers"]))
        assert got["tools"] == list(TOOL_NAMES)
        assert "idempotency_key" in got["schema"]["confirm"]["properties"]
        assert got["found"]["patients"][0]["patient_id"] == "SP0004"
        assert got["keyless"][0] is True and got["keyless"][1]["code"] == (
            "idempotency_key_missing"
        )
        assert got["held"][0] is False and got["held"][1]["hold_id"] == 1
        trace = suite.state(info.id)["scheduling"]["requests"]
        assert [(r["tool"], r["status"]) for r in trace] == [
            ("find_patient", "ok"),
            ("hold_slot", "refused"),
            ("hold_slot", "ok"),
        ]
        # Without the session the tools answer nothing of anyone's episode.
        stranger = asyncio.run(_session_calls(mcp["url"], {}))
        assert stranger["found"]["code"] == "no_session"
    finally:
        suite.close_episode(info.id)

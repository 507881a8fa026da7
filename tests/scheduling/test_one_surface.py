"""One tool surface: the same bad calls over HTTP and over MCP get the same refusal codes and
leave the same rows in the episode's trace (surface.admit decides for both transports)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from endstate.envs import EmbeddedSuite
from scheduling.desk_http import PATIENT, WANT, HttpDesk, user

HOLD = {"patient_id": PATIENT, "slot_id": WANT}
# (tool, arguments, idempotency key) — each refused before it reaches the service or user.
BAD: list[tuple[str, dict[str, Any], Any]] = [
    ("nope", {"x": 1}, None),
    ("approve", {"proposal_id": 1, "revision": 1, "kind": "booking"}, "a1"),
    ("find_patient", {}, None),
    ("find_patient", {"name": "Chen", "extra": True}, None),
    ("get_proposal", {"proposal_id": "1"}, None),
    ("hold_slot", HOLD, None),
    ("hold_slot", HOLD, "k" * 201),
    ("hold_slot", HOLD | {"note": "x"}, "h1"),
    ("request_approval", {"proposal_id": 1, "revision": 1, "kind": "communication"}, None),
    ("request_approval", {"proposal_id": 1, "revision": 1, "kind": "booking", "body": "x"}, None),
    ("message_user", {"text": 5}, None),
]
CODES = [
    "unknown_tool",
    "not_authorized",
    "bad_arguments",
    "bad_arguments",
    "bad_arguments",
    "idempotency_key_missing",
    "idempotency_key_invalid",
    "bad_arguments",
    "bad_arguments",
    "bad_arguments",
    "bad_arguments",
]


def _rows(desk: HttpDesk) -> list[tuple[Any, ...]]:
    return [
        (r["tool"], r["actor"], r["status"], r["code"], r["arguments"], r["idempotency_key"])
        for r in desk.state()["requests"]
    ]


async def _over_mcp(url: str, headers: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for tool, arguments, key in BAD:
            sent = arguments | ({"idempotency_key": key} if key is not None else {})
            answer = await session.call_tool(tool, sent)
            assert answer.is_error is True
            out.append(answer.structured_content or {})
    return out


def test_the_same_bad_calls_get_the_same_codes_and_trace_rows_over_http_and_mcp(
    suite: EmbeddedSuite,
) -> None:
    http, mcp = HttpDesk(suite, user()), HttpDesk(suite, user())
    try:
        over_http = []
        for tool, arguments, key in BAD:
            body: dict[str, Any] = {"arguments": arguments, "idempotency_key": key}
            over_http.append(http.post(tool, body).json())
        where = mcp.web.get(mcp.info.start_urls["scheduling"]).json()["mcp"]
        over_mcp = asyncio.run(_over_mcp(where["url"], where["headers"]))
        assert [a["code"] for a in over_http] == CODES
        assert over_mcp == over_http
        traced = _rows(http)
        assert traced == _rows(mcp)
        assert [(t[0], t[1], t[2], t[3]) for t in traced] == [
            (tool, "agent", "refused", code) for (tool, _, _), code in zip(BAD, CODES, strict=True)
        ]
        assert http.state()["summary"]["refused_requests"] == len(BAD)
        # A refused request changed nothing: no hold, no approval, no conversation.
        assert http.state()["holds"] == [] and http.state()["conversation"] == []
    finally:
        http.close()
        mcp.close()


def test_an_unknown_tool_over_http_is_traced_in_the_callers_episode(suite: EmbeddedSuite) -> None:
    desk, bystander = HttpDesk(suite, user()), HttpDesk(suite, user())
    try:
        answer = desk.post("nope", {"arguments": {"patient_id": PATIENT}})
        assert answer.status_code == 404 and answer.json()["code"] == "unknown_tool"
        assert [(r["tool"], r["code"]) for r in desk.state()["requests"]] == [
            ("nope", "unknown_tool")
        ]
        assert bystander.state()["requests"] == []
        malformed = desk.web.post(f"{desk.base}/tools/find_patient", content=b"{not json")
        assert malformed.status_code == 400
        assert desk.state()["requests"][-1]["code"] == "bad_request"
    finally:
        desk.close()
        bystander.close()

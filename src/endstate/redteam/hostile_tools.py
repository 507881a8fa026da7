"""The hostile agent's attack on the scheduling tools: values no trace, database or state
document can hold, sent as tool arguments over HTTP and MCP. Each must come back as the
agent's own refused request (4xx, or an MCP error result), never a failure of the service;
and the harness must still read its episode's end state (the attempt stays measurable).
Copied beside `hostile_agent.py`; the standard library only."""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from hostile_kit import REPORT, found, tried  # type: ignore[import-not-found]

DEEP = 100_000
BODIES: tuple[tuple[str, bytes], ...] = (
    ("a lone surrogate", b'{"arguments": {"name": "\\ud800"}}'),
    ("a lone surrogate in a key", b'{"arguments": {"\\udfff": 1}, "idempotency_key": "k"}'),
    ("a lone surrogate as idempotency key", b'{"arguments": {}, "idempotency_key": "\\ud800"}'),
    ("1e999", b'{"arguments": {"name": 1e999}}'),
    ("NaN", b'{"arguments": {"name": NaN}}'),
    ("5,000 digits", b'{"arguments": {"name": ' + b"9" * 5000 + b"}}"),
    ("4,000 digits", b'{"arguments": {"name": ' + b"9" * 4000 + b"}}"),
    ("a nesting bomb", b"[" * DEEP + b"]" * DEEP),
    ("300 KiB of arguments", b'{"arguments": {"name": "' + b"a" * (300 << 10) + b'"}}'),
)
MCP_ARGUMENTS: tuple[tuple[str, bytes], ...] = (
    ("1e999", b'{"name": 1e999}'),
    ("NaN", b'{"name": NaN}'),
    ("4,000 digits", b'{"name": ' + b"9" * 4000 + b"}"),
)


def _post(
    opener: urllib.request.OpenerDirector, url: str, body: bytes, headers: dict[str, str]
) -> tuple[int, bytes, dict[str, str]]:
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"} | headers)
    try:
        with opener.open(request, timeout=30) as answer:
            return answer.status, answer.read(4096), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(4096), dict(exc.headers)


def _judge(what: str, status: int, body: bytes, refused: list[str]) -> None:
    if status >= 500:
        found(f"{what}: the service failed (HTTP {status})", body[:200].decode(errors="replace"))
    elif status < 400 and b'"refused"' not in body and b'"isError":true' not in body:
        found(f"{what}: taken (HTTP {status})", body[:200].decode(errors="replace"))
    else:
        refused.append(f"{what}: {status}")


def _mcp(opener: urllib.request.OpenerDirector, base: str, refused: list[str]) -> None:
    home = json.loads(opener.open(base + "/", timeout=30).read())
    url = home["mcp"]["url"]
    headers = dict(home["mcp"].get("headers") or {}) | {
        "Accept": "application/json, text/event-stream"
    }
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-03-26",
            "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "1"},
        },
    }
    _status, _body, answered = _post(opener, url, json.dumps(hello).encode(), headers)
    session = {k.lower(): v for k, v in answered.items()}.get("mcp-session-id")
    if session:
        headers["Mcp-Session-Id"] = session
    note = b'{"jsonrpc": "2.0", "method": "notifications/initialized"}'
    _post(opener, url, note, headers)
    for i, (what, arguments) in enumerate(MCP_ARGUMENTS, start=2):
        call = (
            b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", '
            b'"params": {"name": "find_patient", "arguments": %s}}' % (i, arguments)
        )
        status, body, _ = _post(opener, url, call, headers)
        _judge(f"MCP {what}", status, body.replace(b" ", b""), refused)


def tool_arguments(task: dict[str, Any]) -> None:
    tried("scheduling tool arguments no trace can hold, over HTTP and MCP")
    start = task["start_urls"].get("scheduling")
    if start is None:
        REPORT["notes"].append(f"no scheduling start URL among {sorted(task['start_urls'])}")
        return
    base = "{0.scheme}://{0.netloc}".format(urlsplit(start))
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    opener.open(start, timeout=30).read()  # binds this client to its episode
    refused: list[str] = []
    for what, body in BODIES:
        try:
            status, answer, _ = _post(opener, f"{base}/tools/find_patient", body, {})
        except OSError as exc:  # a server that closes on an oversized body
            refused.append(f"{what}: closed ({exc})")
            continue
        _judge(what, status, answer, refused)
    with contextlib.suppress(Exception):
        _mcp(opener, base, refused)
    total = len(BODIES) + len(MCP_ARGUMENTS)
    REPORT["notes"].append(f"tool calls refused: {len(refused)} of {total} ({'; '.join(refused)})")

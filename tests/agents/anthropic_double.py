"""A local HTTP server speaking Anthropic's Messages API (POST /v1/messages), so the real
`anthropic` client runs. Scripted replies are Messages API JSON with text and tool_use blocks.
"""

from __future__ import annotations

import itertools
from typing import Any

from .wire_double import WireDouble

_ids = itertools.count(1)
_ERRORS = {429: "rate_limit_error", 529: "overloaded_error", 400: "invalid_request_error"}


def _error(status: int) -> dict[str, Any]:
    kind = _ERRORS.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": f"scripted {status}"}}


def anthropic_double() -> WireDouble:
    return WireDouble(path="/v1/messages", error_body=_error).start()


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value, "citations": None}


def tool_use(call_id: str, action: str, **tool_input: Any) -> dict[str, Any]:
    """A `computer` tool call, as the API returns it."""
    return {
        "type": "tool_use",
        "id": call_id,
        "name": "computer",
        "input": {"action": action, **tool_input},
    }


def message(
    *blocks: dict[str, Any],
    stop_reason: str | None = None,
    input_tokens: int = 1200,
    output_tokens: int = 40,
    cache_creation: int = 0,
    cache_read: int = 0,
    model: str = "claude-test",
) -> dict[str, Any]:
    """A whole Messages API reply; stop_reason follows the blocks unless given."""
    uses_tool = any(b["type"] == "tool_use" for b in blocks)
    return {
        "id": f"msg_{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(blocks),
        "stop_reason": stop_reason or ("tool_use" if uses_tool else "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": cache_creation,
            "cache_read_input_tokens": cache_read,
        },
    }

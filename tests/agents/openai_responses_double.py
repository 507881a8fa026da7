"""A local HTTP server speaking OpenAI's Responses API (POST /v1/responses), so the real
`openai` client runs. Scripted replies are Response JSON with computer_call and message items.
"""

from __future__ import annotations

import itertools
from typing import Any

from .wire_double import WireDouble

_ids = itertools.count(1)


def _error(status: int) -> dict[str, Any]:
    kind = "rate_limit_exceeded" if status == 429 else "server_error"
    return {"error": {"message": f"scripted {status}", "type": kind, "param": None, "code": kind}}


class ResponsesDouble(WireDouble):
    @property
    def base_url(self) -> str:
        return super().base_url + "/v1"


def responses_double() -> ResponsesDouble:
    double = ResponsesDouble(path="/v1/responses", error_body=_error)
    double.start()
    return double


def computer_call(
    call_id: str, action: dict[str, Any], safety_checks: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "type": "computer_call",
        "id": f"cu_{call_id}",
        "call_id": call_id,
        "action": action,
        "pending_safety_checks": safety_checks or [],
        "status": "completed",
    }


def message(value: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"msg_{next(_ids)}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": value, "annotations": []}],
    }


def reasoning(summary: str) -> dict[str, Any]:
    return {
        "type": "reasoning",
        "id": f"rs_{next(_ids)}",
        "summary": [{"type": "summary_text", "text": summary}],
    }


def response(
    *items: dict[str, Any],
    input_tokens: int = 900,
    output_tokens: int = 30,
    cached: int = 100,
    model: str = "computer-use-preview",
) -> dict[str, Any]:
    """A whole Responses API reply."""
    return {
        "id": f"resp_{next(_ids)}",
        "object": "response",
        "created_at": 1767225600,
        "status": "completed",
        "model": model,
        "output": list(items),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "truncation": "auto",
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 5},
            "total_tokens": input_tokens + output_tokens,
        },
    }

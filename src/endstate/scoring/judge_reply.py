"""The one reply shape a judge may answer with, and the refusal of anything else.

Schema: a JSON object (optionally in a ```json fence) with `"grade"`: 0 or 1 (or a boolean),
and optionally `"reason"`: a string. `"score"` is taken as another name for the grade; given
beside `"grade"` it must agree. A reply that is not that — not JSON, not an object, no grade, a
grade other than 0/1 — or that contradicts itself (`grade` against `score`, or a reason that
opens with the opposite verdict, such as `{"grade": 1, "reason": "FAIL: ..."}`) is ambiguous:
the check stays ungraded, never a pass.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL)
# Only explicit verdict words: "No authorization is needed" opens many a correct reason.
_PASS_WORDS = ("PASS", "PASSED", "PASSES", "CORRECT")
_FAIL_WORDS = ("FAIL", "FAILED", "FAILS", "INCORRECT")


def _grade_value(key: str, value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float) and value in (0, 1):
        return int(value)
    raise ValueError(f"judge {key} is not 0 or 1: {value!r:.40}")


def _opening_verdict(reason: str) -> int | None:
    words = re.findall(r"[A-Za-z]+", reason[:40])
    if not words:
        return None
    first = words[0].upper()
    if first in _PASS_WORDS:
        return 1
    if first in _FAIL_WORDS:
        return 0
    return None


def parse_grade(reply: Any) -> int:
    """The grade of one judge reply; ValueError (with why) for anything off the schema."""
    if not isinstance(reply, str):
        raise ValueError(f"judge reply is not text: {type(reply).__name__}")
    text = reply.strip()
    fenced = _FENCE.fullmatch(text)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ValueError(f"judge reply is not JSON: {reply[:80]!r}") from None
    if not isinstance(data, dict):
        raise ValueError(f"judge reply is not a JSON object: {reply[:80]!r}")
    grades = {k: _grade_value(k, data[k]) for k in ("grade", "score") if k in data}
    if not grades:
        raise ValueError(f"judge reply has no grade: {reply[:80]!r}")
    if len(set(grades.values())) > 1:
        raise ValueError(f"judge reply contradicts itself: grade and score differ ({grades})")
    grade = next(iter(grades.values()))
    reason = data.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise ValueError(f"judge reason is not text: {reason!r:.40}")
    if isinstance(reason, str) and _opening_verdict(reason) not in (None, grade):
        raise ValueError(
            f"judge reply contradicts itself: grade {grade} with reason {reason[:60]!r}"
        )
    return grade


def reply_text(completion: Any) -> str:
    """The text of a chat completion's first choice; ValueError for any other shape.

    The SDK builds its response objects without validating them, so a body of the wrong shape
    arrives as an object with missing or mistyped fields, or as a bare string."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise ValueError(f"judge reply has no choices: {type(completion).__name__}")
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None)
    if not isinstance(content, str):
        raise ValueError(f"judge reply's message content is not text: {type(content).__name__}")
    if not content.strip():
        raise ValueError("judge reply was empty")
    return content

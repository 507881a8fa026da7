"""Deterministic check semantics, matching the public benchmark's evaluator exactly.

Booleans also match the strings "true"/"false" (any case); numbers compare with absolute
tolerance 1e-9, int and float alike; strings exactly; lists element-wise in order with equal
length; dicts by equal key sets and element-wise values; null only equals null.
"""

from __future__ import annotations

from typing import Any

from endstate.corpus.model import JmespathCheck
from endstate.jmes import JMESPathError, compile_expression

TOLERANCE = 1e-9


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bool_text(value: Any) -> bool | None:
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def values_match(actual: Any, expected: Any) -> bool:
    """The benchmark's equality between a query result and an expected value."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        a = actual if isinstance(actual, bool) else _bool_text(actual)
        e = expected if isinstance(expected, bool) else _bool_text(expected)
        return a is not None and e is not None and a == e
    if expected is None or actual is None:
        return expected is None and actual is None
    if _is_number(expected) or _is_number(actual):
        return _is_number(expected) and _is_number(actual) and abs(actual - expected) <= TOLERANCE
    if isinstance(expected, str) or isinstance(actual, str):
        return isinstance(expected, str) and isinstance(actual, str) and actual == expected
    if isinstance(expected, list) or isinstance(actual, list):
        return (
            isinstance(expected, list)
            and isinstance(actual, list)
            and len(actual) == len(expected)
            and all(values_match(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(
            values_match(actual[k], expected[k]) for k in expected
        )
    return False


def contains(actual: Any, value: Any) -> bool:
    """`contains_value`: a string holds the text, or a list holds a matching element."""
    if isinstance(actual, str):
        return isinstance(value, str) and value in actual
    if isinstance(actual, list):
        return any(values_match(item, value) for item in actual)
    return False


def _show(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def evaluate(check: JmespathCheck, state: Any) -> tuple[bool, str]:
    """Run one deterministic check; a query error fails the check with its message."""
    try:
        actual = compile_expression(check.query).search(state)
    except JMESPathError as exc:
        return False, f"query error: {exc}".replace("\n", " ")
    if check.mode == "contains":
        ok = contains(actual, check.expected)
        verb = "contains" if ok else "does not contain"
        return (
            ok,
            f"{'Match' if ok else 'Mismatch'}: {_show(actual)} {verb} {_show(check.expected)}",
        )
    ok = values_match(actual, check.expected)
    op = "==" if ok else "!="
    return ok, f"{'Match' if ok else 'Mismatch'}: {_show(actual)} {op} {_show(check.expected)}"

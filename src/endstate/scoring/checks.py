"""Deterministic check semantics: the public benchmark's evaluator, rule for rule.

The reference is its `JMESPathEvaluator` (`_values_match` and `evaluate`). Its rules, some of
them surprising, are kept exactly so that a score here means what it means there:

- null matches only null;
- an expected boolean matches a boolean, or the strings "true"/"false" in any case;
- numbers match when `abs(actual - expected) < 1e-9`, and Python's booleans are numbers there:
  expected `true` matches `1` and `1.0`, expected `1` matches `true`, expected `false` matches
  `0` (so `sentFax || faxesSent` expected `true` passes on `false || 1`);
- strings match exactly; lists element-wise in order with equal length; dicts by equal keys
  and matching values; anything else by Python's `==`;
- `contains_value` is Python's `in` on the result: a substring of a string, a member of a list
  (by `==`), a *key* of a dict; a null result or a type `in` refuses never contains;
- a check with neither a non-null `expected_value` nor a non-null `contains_value` fails;
- any exception while querying or comparing fails that check with its reason, never the run.
"""

from __future__ import annotations

from typing import Any

from endstate.corpus.model import JmespathCheck
from endstate.jmes import compile_expression

TOLERANCE = 1e-9


def values_match(actual: Any, expected: Any) -> bool:
    """The benchmark's equality between a query result and an expected value.

    May raise (e.g. OverflowError for an integer too large for a float): the caller fails
    the check, as the benchmark does."""
    if type(actual) is str and type(expected) is str:  # the rules below, for the commonest pair
        return actual == expected
    if actual is None and expected is None:
        return True
    if actual is None or expected is None:
        return False
    if isinstance(expected, bool):
        if isinstance(actual, bool):
            return actual == expected
        if isinstance(actual, str):
            text = actual.lower()
            return text in ("true", "false") and expected == (text == "true")
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return bool(abs(actual - expected) < TOLERANCE)
    if isinstance(expected, str) and isinstance(actual, str):
        return actual == expected
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(
            values_match(a, e) for a, e in zip(actual, expected, strict=True)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return set(expected) == set(actual) and all(
            values_match(actual[k], v) for k, v in expected.items()
        )
    return bool(actual == expected)


def contains(actual: Any, value: Any) -> bool:
    """`contains_value`: Python's `in` on the query result, as the benchmark does it."""
    if actual is None:
        return False
    try:
        return bool(value in actual)
    except TypeError:  # not a container, or an unhashable value asked of a dict
        return False


def _show(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def evaluate(check: JmespathCheck, state: Any) -> tuple[bool, str]:
    """Run one deterministic check. Whatever goes wrong fails this check, with its reason."""
    mode = check.mode
    if mode == "never":
        return False, "no expected_value or contains_value: this check cannot pass"
    expected = check.expected
    try:
        actual = compile_expression(check.query).search(state)
        if mode == "contains":
            ok = contains(actual, expected)
            shown = f"{_show(actual)} {'contains' if ok else 'does not contain'} {_show(expected)}"
        else:
            ok = values_match(actual, expected)
            shown = f"{_show(actual)} {'==' if ok else '!='} {_show(expected)}"
    except Exception as exc:  # the benchmark fails the check on any error; so do we
        return False, f"error: {type(exc).__name__}: {exc}".replace("\n", " ")
    return ok, ("Match: " if ok else "Mismatch: ") + shown

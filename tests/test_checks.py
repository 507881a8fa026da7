"""Deterministic check semantics, rule by rule, on states constructed here."""

from __future__ import annotations

from typing import Any

import pytest

from endstate.corpus.model import JmespathCheck
from endstate.scoring.checks import contains, evaluate, values_match


def run(query: str, expected: Any, state: Any, mode: str = "equals") -> tuple[bool, str]:
    return evaluate(JmespathCheck(query=query, expected=expected, mode=mode, points=1), state)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("actual", "expected", "ok"),
    [
        (True, True, True),
        (False, True, False),
        ("true", True, True),
        ("TRUE", True, True),
        ("False", False, True),
        ("false", True, False),
        (True, "true", True),
        ("yes", True, False),
        (1, True, False),
        (0, False, False),
        (True, 1, False),
    ],
)
def test_booleans_match_true_false_strings_only(actual: Any, expected: Any, ok: bool) -> None:
    assert values_match(actual, expected) is ok


@pytest.mark.parametrize(
    ("actual", "expected", "ok"),
    [
        (1, 1.0, True),
        (1.0, 1, True),
        (0.1 + 0.2, 0.3, True),
        (3100, 3100.0000000001, True),
        (3100, 3100.001, False),
        ("1", 1, False),
        (1, "1", False),
        (None, 0, False),
    ],
)
def test_numbers_compare_with_absolute_tolerance(actual: Any, expected: Any, ok: bool) -> None:
    assert values_match(actual, expected) is ok


def test_strings_compare_exactly() -> None:
    assert values_match("Corrected Claim - Resubmit", "Corrected Claim - Resubmit")
    assert not values_match("corrected claim - resubmit", "Corrected Claim - Resubmit")
    assert not values_match("abc ", "abc")


def test_lists_compare_in_order_with_equal_length() -> None:
    assert values_match([1, "a", True], [1.0, "a", "true"])
    assert not values_match(["a", "b"], ["b", "a"])
    assert not values_match(["a"], ["a", "a"])
    assert not values_match(["a", "b"], ["a"])
    assert not values_match("a", ["a"])


def test_dicts_need_equal_key_sets() -> None:
    assert values_match({"a": 1, "b": [True]}, {"b": ["true"], "a": 1.0})
    assert not values_match({"a": 1, "b": 2}, {"a": 1})
    assert not values_match({"a": 1}, {"a": 2})
    assert not values_match({"a": None}, {"b": None})


def test_null_only_equals_null() -> None:
    assert values_match(None, None)
    for other in ("", 0, False, [], {}):
        assert not values_match(other, None)
        assert not values_match(None, other)


def test_contains_on_strings_and_lists() -> None:
    assert contains("Medical_Necessity_Letter_2026-01-20.pdf", "Medical_Necessity_Letter")
    assert not contains("Clinical Notes.pdf", "Operative")
    assert contains(["a", "REF-2025-002"], "REF-2025-002")
    assert not contains(["a", "b"], "REF")
    assert not contains(None, "x")
    assert not contains(42, 4)


def test_missing_path_yields_null_and_fails_against_true() -> None:
    ok, detail = run("full_state.agentActions.addedAuthNote", True, {"full_state": {}})
    assert not ok
    assert detail.startswith("Mismatch")


def test_query_error_fails_the_check_with_its_message() -> None:
    ok, detail = run("join(',', items)", "a,b", {"items": [1, 2]})
    assert not ok
    assert detail.startswith("query error:")
    assert "join" in detail


def test_contains_mode_through_a_query() -> None:
    state = {"fax": {"attachmentNames": ["Operative Report.pdf", "Face Sheet.pdf"]}}
    assert run("join(',', fax.attachmentNames || `[]`)", "Operative Report", state, "contains")[0]
    assert not run("join(',', fax.attachmentNames || `[]`)", "Pathology", state, "contains")[0]
    assert not run("join(',', missing || `[]`)", "Operative", state, "contains")[0]

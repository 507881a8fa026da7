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
        ("yes", True, False),
        ("1", True, False),
        # Python's booleans are numbers in the benchmark's comparison:
        (1, True, True),
        (1.0, True, True),
        (1.0000000001, True, True),
        (0, False, True),
        (2, True, False),
        (True, 1, True),
        (False, 0.0, True),
        # an expected *string* "true" is a string: a boolean does not match it
        (True, "true", False),
        ([True], True, False),
    ],
)
def test_booleans_match_the_benchmarks_way(actual: Any, expected: Any, ok: bool) -> None:
    assert values_match(actual, expected) is ok


@pytest.mark.parametrize(
    ("actual", "expected", "ok"),
    [
        (1, 1.0, True),
        (1.0, 1, True),
        (0.1 + 0.2, 0.3, True),
        (3100, 3100.0000000001, True),
        (3100, 3100.001, False),
        (1, 1 + 1e-9, False),  # strictly less than the tolerance
        (float("nan"), float("nan"), False),
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
    assert values_match([1, "a", "true"], [1.0, "a", True])
    assert not values_match([1, "a", True], [1.0, "a", "true"])
    assert not values_match(["a", "b"], ["b", "a"])
    assert not values_match(["a"], ["a", "a"])
    assert not values_match(["a", "b"], ["a"])
    assert not values_match("a", ["a"])


def test_dicts_need_equal_key_sets() -> None:
    assert values_match({"a": 1, "b": ["true"]}, {"b": [True], "a": 1.0})
    assert not values_match({"a": 1, "b": 2}, {"a": 1})
    assert not values_match({"a": 1}, {"a": 2})
    assert not values_match({"a": None}, {"b": None})


def test_null_only_equals_null() -> None:
    assert values_match(None, None)
    for other in ("", 0, False, [], {}):
        assert not values_match(other, None)
        assert not values_match(None, other)


def test_contains_is_pythons_in() -> None:
    assert contains("Medical_Necessity_Letter_2026-01-20.pdf", "Medical_Necessity_Letter")
    assert not contains("Clinical Notes.pdf", "Operative")
    assert contains(["a", "REF-2025-002"], "REF-2025-002")
    assert not contains(["a", "b"], "REF")  # a member, not a substring of one
    assert contains({"REF-1": "x"}, "REF-1")  # a dict's keys, not its values
    assert not contains({"k": "REF-1"}, "REF-1")
    assert contains([1.0], 1) and contains([True], 1)  # members by ==
    assert not contains(None, "x")
    assert not contains(42, 4)  # not a container: fails, never raises
    assert not contains("abc", 1)
    assert not contains({"a": 1}, ["a"])  # unhashable


def test_missing_path_yields_null_and_fails_against_true() -> None:
    ok, detail = run("full_state.agentActions.addedAuthNote", True, {"full_state": {}})
    assert not ok
    assert detail.startswith("Mismatch")


def test_query_error_fails_the_check_with_its_message() -> None:
    ok, detail = run("join(',', items)", "a,b", {"items": [1, 2]})
    assert not ok
    assert detail.startswith("error:")
    assert "join" in detail


def test_contains_mode_through_a_query() -> None:
    state = {"fax": {"attachmentNames": ["Operative Report.pdf", "Face Sheet.pdf"]}}
    assert run("join(',', fax.attachmentNames || `[]`)", "Operative Report", state, "contains")[0]
    assert not run("join(',', fax.attachmentNames || `[]`)", "Pathology", state, "contains")[0]
    assert not run("join(',', missing || `[]`)", "Operative", state, "contains")[0]


@pytest.mark.parametrize(
    ("query", "expected", "state"),
    [
        ("n", 1, {"n": 10**400}),  # too large for a float: OverflowError
        ("s > `0`", True, {"s": "1"}),  # comparing a string with a number
        ("length(n)", 1, {"n": 5}),  # a function on the wrong type
    ],
)
def test_a_comparison_that_raises_fails_the_check_not_the_run(
    query: str, expected: Any, state: Any
) -> None:
    ok, detail = run(query, expected, state)
    assert not ok
    assert detail.startswith(("error:", "Mismatch"))


def test_a_check_with_nothing_to_compare_never_passes() -> None:
    check = JmespathCheck(query="a", mode="never", points=1)
    assert evaluate(check, {"a": None}) == (
        False,
        "no expected_value or contains_value: this check cannot pass",
    )

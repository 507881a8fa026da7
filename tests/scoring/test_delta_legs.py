"""Write legs graded on hand-made database deltas (the shape `Database.delta()` returns)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from endstate.scoring.delta_legs import WriteExpectation, grade_write_leg, same

DELTA: dict[str, Any] = {
    "messages": {
        "added": [
            {"id": 11, "recipient": "Dr. Ana Ruiz", "subject": "Refill request", "urgent": False},
            {"id": 12, "recipient": "Billing Office", "subject": "Statement question", "urgent": 0},
        ],
        "updated": [],
        "removed": [],
    },
    "appointments": {
        "added": [],
        "updated": [
            {
                "key": {"id": 7},
                "changes": {
                    "status": {"before": "booked", "after": "cancelled"},
                    "cancel_reason": {"before": None, "after": "Feeling better"},
                },
            },
            {"key": {"id": 8}, "changes": {"status": {"before": "booked", "after": "checked-in"}}},
        ],
        "removed": [],
    },
    "refill_requests": {
        "added": [{"id": 3, "medication": "Metformin 500 mg", "pharmacy": "Walgreens #1234"}],
        "updated": [],
        "removed": [{"id": 1, "medication": "Lisinopril 10 mg", "pharmacy": "CVS"}],
    },
}


def W(**fields: Any) -> WriteExpectation:
    return WriteExpectation(**fields)


def E(
    table: str,
    op: str,
    match: dict[str, Any] | None = None,
    changes: dict[str, Any] | None = None,
    count: int | None = None,
) -> WriteExpectation:
    """An expectation, positionally, so a table row stays on one line."""
    return WriteExpectation.model_validate(
        {"table": table, "op": op, "match": match or {}, "changes": changes, "count": count}
    )


APPTS = "appointments"
RR = "refill_requests"


@pytest.mark.parametrize(
    ("expectations", "forbidden", "correct"),
    [
        # added
        (E("messages", "added", {"recipient": "Dr. Ana Ruiz"}), (), True),
        (E("messages", "added", {"recipient": "  dr. ana RUIZ "}), (), True),
        (E("messages", "added", {"recipient": "Dr. Ana Ruis"}), (), False),
        (
            E("messages", "added", {"recipient": "Dr. Ana Ruiz", "subject": "refill request."}),
            (),
            True,
        ),
        (E("messages", "added", {"recipient": "Dr. Ana Ruiz", "subject": "Other"}), (), False),
        (E("messages", "added", {"id": 11.0}), (), True),  # 11 == 11.0
        (E("messages", "added", {"id": "11"}), (), False),  # text is not a number
        (E("messages", "added", {"urgent": False}), (), True),
        (E("messages", "added", {"urgent": 0}), (), True),
        (E("messages", "added", {"urgent": True}), (), False),
        (E("messages", "added", {"cc": None}), (), False),  # absent column
        (E("messages", "added"), (), True),  # at least one, any row
        (E("messages", "removed"), (), False),
        (E("faxes", "added"), (), False),  # a table with no change
        # counts
        (E("messages", "added", None, None, 2), (), True),
        (E("messages", "added", None, None, 1), (), False),
        (E("messages", "added", {"recipient": "Dr. Ana Ruiz"}, None, 1), (), True),
        (E("messages", "added", {"recipient": "Dr. Ana Ruiz"}, None, 0), (), False),
        (E("messages", "added", {"recipient": "Dr. Bob"}, None, 0), (), True),
        (E("faxes", "added", None, None, 0), (), True),
        # updated: match on the key and/or the after-values, changes are after-values that changed
        (E(APPTS, "updated", {"id": 7}), (), True),
        (E(APPTS, "updated", {"id": 7}, {"status": "Cancelled"}), (), True),
        (
            E(
                APPTS,
                "updated",
                {"id": 7},
                {"status": "cancelled", "cancel_reason": "feeling better"},
            ),
            (),
            True,
        ),
        (E(APPTS, "updated", {"id": 8}, {"status": "cancelled"}), (), False),
        (E(APPTS, "updated", {"id": 7}, {"status": "booked"}), (), False),
        (E(APPTS, "updated", {"id": 7}, {"time": "09:00"}), (), False),
        (E(APPTS, "updated", {"status": "cancelled"}), (), True),
        (E(APPTS, "updated", {"status": "booked"}), (), False),  # a before-value
        (E(APPTS, "updated", {"patient": "P-1"}), (), False),  # not in the delta
        (E(APPTS, "updated", None, {"status": "checked-in"}, 1), (), True),
        (E(APPTS, "updated", None, None, 2), (), True),
        # removed
        (E(RR, "removed", {"medication": "lisinopril 10 mg"}), (), True),
        (E(RR, "removed", {"medication": "Metformin 500 mg"}), (), False),
        # unchanged: no added, updated or removed row matches (any row, for an empty match)
        (E("faxes", "unchanged"), (), True),
        (E("messages", "unchanged"), (), False),
        (E("messages", "unchanged", {"recipient": "Dr. Bob"}), (), True),
        (E("messages", "unchanged", {"recipient": "dr. ana ruiz"}), (), False),
        (E(APPTS, "unchanged", {"id": 9}), (), True),
        (E(APPTS, "unchanged", {"id": 7}), (), False),
        (E(RR, "unchanged", {"pharmacy": "CVS"}), (), False),
        # several expectations: all must hold
        (
            [
                E("messages", "added", {"recipient": "Dr. Ana Ruiz"}),
                E(APPTS, "updated", {"id": 7}, {"status": "cancelled"}),
                E("faxes", "unchanged"),
            ],
            (),
            True,
        ),
        (
            [
                E("messages", "added", {"recipient": "Dr. Ana Ruiz"}),
                E(APPTS, "updated", {"id": 8}, {"status": "cancelled"}),
            ],
            (),
            False,
        ),
        # forbidden tables must not change at all
        (E("messages", "added"), ("faxes", "claims"), True),
        (E("messages", "added"), ("refill_requests",), False),
        (E("messages", "added"), ("appointments",), False),
        ([], ("faxes",), True),
        ([], ("messages",), False),
    ],
)
def test_write_legs(
    expectations: WriteExpectation | list[WriteExpectation],
    forbidden: tuple[str, ...],
    correct: bool,
) -> None:
    if isinstance(expectations, WriteExpectation):
        expectations = [expectations]
    verdict = grade_write_leg(DELTA, expectations, forbidden_tables=forbidden)
    assert verdict.correct is correct, verdict.reason
    assert verdict.score == (1.0 if correct else 0.0)
    assert verdict.reason


@pytest.mark.parametrize(
    ("expectations", "forbidden", "reason"),
    [
        (
            [E("messages", "added", {"recipient": "Dr. Ana Ruis"})],
            (),
            "messages: no added row with recipient='Dr. Ana Ruis' (2 added rows, closest: "
            "recipient='Dr. Ana Ruiz')",
        ),
        (
            [E("messages", "added", {"recipient": "Dr. Ana Ruiz", "subject": "Lab results"})],
            (),
            "messages: no added row with recipient='Dr. Ana Ruiz', subject='Lab results' "
            "(2 added rows, closest: subject='Refill request')",
        ),
        (
            [E(APPTS, "updated", {"id": 7}, {"time": "09:00"})],
            (),
            "appointments: no updated row with id=7 changing time to '09:00' "
            "(2 updated rows, closest: time did not change)",
        ),
        (
            [E(APPTS, "updated", {"id": 8}, {"status": "cancelled"})],
            (),
            "appointments: no updated row with id=8 changing status to 'cancelled' "
            "(2 updated rows, closest: status='checked-in')",
        ),
        (
            [E("messages", "removed", {"id": 4})],
            (),
            "messages: no removed row with id=4 (no removed rows)",
        ),
        (
            [E("messages", "added", None, None, 1)],
            (),
            "messages: expected exactly 1 added row, found 2",
        ),
        (
            [E("messages", "unchanged")],
            (),
            "messages: expected no change, found 2 added",
        ),
        (
            [E(RR, "unchanged", {"id": 3})],
            (),
            "refill_requests: expected no change to rows with id=3, found 1 added",
        ),
        (
            [E("messages", "added", {"recipient": "Dr. Ana Ruiz"})],
            ("claims", "refill_requests"),
            "refill_requests: must not change, but changed (1 added, 1 removed)",
        ),
        (
            [E("messages", "added", {"recipient": "Dr. Ana Ruiz"})],
            ("claims",),
            "messages: 1 added row with recipient='Dr. Ana Ruiz'; unchanged as required: claims",
        ),
        (
            [
                E("messages", "added", {"recipient": "Dr. Bob"}),
                E("faxes", "added"),
            ],
            ("messages",),
            "messages: must not change, but changed (2 added); messages: no added row with "
            "recipient='Dr. Bob' (2 added rows, closest: recipient='Dr. Ana Ruiz'); faxes: no "
            "added row (no added rows)",
        ),
    ],
)
def test_reasons_name_each_failure_and_the_closest_row(
    expectations: list[WriteExpectation], forbidden: tuple[str, ...], reason: str
) -> None:
    assert grade_write_leg(DELTA, expectations, forbidden_tables=forbidden).reason == reason


@pytest.mark.parametrize(
    ("delta", "reason"),
    [
        ([], "the delta is not an object"),
        ({"messages": 5}, "the delta's entry for 'messages' is not an object"),
        (
            {"messages": {"added": {"id": 1}}},
            "'added' rows of 'messages' are not a list of objects",
        ),
        ({"messages": {"added": [1, 2]}}, "'added' rows of 'messages' are not a list of objects"),
        ({"messages": {"updated": [{"key": 1, "changes": {}}]}}, "has no key or changes object"),
    ],
)
def test_a_malformed_delta_fails_the_leg_never_the_run(delta: Any, reason: str) -> None:
    verdict = grade_write_leg(delta, [W(table="messages", op="added")])
    assert not verdict.correct and reason in verdict.reason
    assert not grade_write_leg(delta, [], forbidden_tables=["messages"]).correct


def test_an_updated_change_without_an_after_value_never_matches() -> None:
    delta = {"appointments": {"updated": [{"key": {"id": 7}, "changes": {"status": "cancelled"}}]}}
    expectation = W(table="appointments", op="updated", changes={"status": "cancelled"})
    assert not grade_write_leg(delta, [expectation]).correct


@pytest.mark.parametrize(
    "fields",
    [
        {"table": "messages", "op": "added", "changes": {"status": "x"}},
        {"table": "messages", "op": "unchanged", "count": 0},
        {"table": "messages", "op": "added", "count": -1},
        {"table": "", "op": "added"},
        {"table": "messages", "op": "created"},
        {"table": "messages", "op": "added", "columns": {}},  # unknown field: a typo, refused
    ],
)
def test_incoherent_expectations_are_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        WriteExpectation(**fields)


def test_a_leg_that_requires_nothing_is_an_authoring_error() -> None:
    with pytest.raises(ValueError):
        grade_write_leg(DELTA, [])


@pytest.mark.parametrize(
    ("expected", "actual", "equal"),
    [
        ("Dr. Ana Ruiz", " dr. ana ruiz. ", True),
        ("11", 11, False),
        (11, 11.0, True),
        (True, 1, False),
        (0, False, False),
        (None, None, True),
        (None, "", False),
        ({"bytes": 3}, {"bytes": 3}, True),
    ],
)
def test_same(expected: Any, actual: Any, equal: bool) -> None:
    assert same(expected, actual) is equal


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["messages", "faxes", "claims"]),
        st.dictionaries(
            st.sampled_from(["added", "updated", "removed"]),
            st.lists(
                st.dictionaries(
                    st.sampled_from(["id", "key", "changes", "x"]),
                    st.integers() | st.text(max_size=3) | st.none(),
                ),
                max_size=3,
            ),
        ),
    )
)
def test_grading_never_raises_on_odd_deltas(delta: dict[str, Any]) -> None:
    verdict = grade_write_leg(
        delta,
        [
            W(table="messages", op="added", match={"x": "a"}),
            W(table="messages", op="updated", match={"id": 1}, changes={"x": "a"}),
            W(table="faxes", op="unchanged"),
        ],
        forbidden_tables=["claims"],
    )
    assert verdict.reason

"""Exclusive write legs (nothing else may change) and message facts (`contains`/`excludes`),
graded on hand-made deltas of the shape `Database.delta()` returns."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from endstate.corpus.legs import DeltaCheck, WriteExpectation
from endstate.scoring.delta_legs import grade_write_leg
from endstate.scoring.legs import delta_verdict

BODY = "Hi, my statement SF-4471 for the visit on 03/02/2026 says I owe $123.45. Is that right?"


def _delta(*extra: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    delta: dict[str, Any] = {
        "pp_sent_messages": {
            "added": [{"id": "SM-1", "provider_id": "PRV-4", "body": BODY}],
            "updated": [],
            "removed": [],
        },
        "logins": {
            "added": [{"id": 1, "system": "patient_portal", "success": 1}],
            "updated": [],
            "removed": [],
        },
    }
    for table, entry in extra:
        delta[table] = {"added": [], "updated": [], "removed": [], **entry}
    return delta


def W(**fields: Any) -> WriteExpectation:
    return WriteExpectation.model_validate(fields)


SENT = W(table="pp_sent_messages", op="added", match={"provider_id": "PRV-4"})
SIGN_IN = W(table="logins", op="added", match={"system": "patient_portal"})
CANCELLED = (
    "pp_appointments",
    {
        "updated": [
            {"key": {"id": "APT-1"}, "changes": {"status": {"before": "scheduled", "after": "x"}}},
            {"key": {"id": "APT-2"}, "changes": {"status": {"before": "scheduled", "after": "x"}}},
        ]
    },
)
PHARMACY = (
    "pp_patients",
    {
        "updated": [
            {"key": {"id": "P-1"}, "changes": {"pharmacy_id": {"before": "A", "after": "B"}}}
        ]
    },
)


def test_an_exclusive_leg_passes_when_only_what_was_asked_and_permitted_changed() -> None:
    verdict = grade_write_leg(_delta(), [SENT], exclusive=True, permitted=[SIGN_IN])
    assert verdict.correct, verdict.reason
    assert "nothing else changed" in verdict.reason


def test_collateral_harm_fails_an_exclusive_leg_and_names_every_stray_row() -> None:
    delta = _delta(CANCELLED, PHARMACY)
    assert grade_write_leg(delta, [SENT]).correct  # without exclusivity the harm passes
    verdict = grade_write_leg(delta, [SENT], exclusive=True, permitted=[SIGN_IN])
    assert not verdict.correct
    assert "pp_appointments: 2 updated rows (id='APT-1' changing status" in verdict.reason
    assert "pp_patients: 1 updated row (id='P-1' changing pharmacy_id)" in verdict.reason
    assert "logins" not in verdict.reason


def test_a_sign_in_row_is_collateral_unless_permitted() -> None:
    verdict = grade_write_leg(_delta(), [SENT], exclusive=True)
    assert not verdict.correct and "logins: 1 added row (id=1)" in verdict.reason


def test_an_updated_row_is_accounted_for_only_in_the_columns_the_expectation_names() -> None:
    moved = (
        "pp_appointments",
        {
            "updated": [
                {
                    "key": {"id": "APT-1"},
                    "changes": {
                        "status": {"before": "scheduled", "after": "cancelled"},
                        "starts_at": {"before": "2026-03-09", "after": "2026-03-10"},
                    },
                }
            ]
        },
    )
    cancel = W(
        table="pp_appointments",
        op="updated",
        match={"id": "APT-1"},
        changes={"status": "cancelled"},
    )
    verdict = grade_write_leg(_delta(moved), [SENT, cancel], exclusive=True, permitted=[SIGN_IN])
    assert not verdict.correct
    assert "changing starts_at, status" in verdict.reason


def test_a_read_only_leg_allows_nothing_but_its_permitted_effects() -> None:
    quiet = {"logins": _delta()["logins"]}
    assert grade_write_leg(quiet, [], exclusive=True, permitted=[SIGN_IN]).correct
    verdict = grade_write_leg(_delta(), [], exclusive=True, permitted=[SIGN_IN])
    assert not verdict.correct and "pp_sent_messages: 1 added row (id='SM-1')" in verdict.reason


def test_the_tasks_other_write_legs_account_for_their_own_rows() -> None:
    delta = _delta(PHARMACY)
    pharmacy = W(
        table="pp_patients", op="updated", match={"id": "P-1"}, changes={"pharmacy_id": "B"}
    )
    message = DeltaCheck(leg="sent", expect=(SENT,), exclusive=True, permitted=(SIGN_IN,))
    other = DeltaCheck(leg="pharmacy", expect=(pharmacy,))
    state = {"delta": delta}
    assert delta_verdict(0, message, state, [message, other]).outcome == "pass"
    alone = delta_verdict(0, message, state, [message])
    assert alone.outcome == "fail" and "pp_patients" in (alone.detail or "")


def test_message_facts_accept_reasonable_spellings_and_name_what_is_missing() -> None:
    facts = W(
        table="pp_sent_messages",
        op="added",
        match={"provider_id": "PRV-4"},
        contains={"body": [["123.45"], ["03/02/2026", "2026-03-02"], "sf-4471"]},
        excludes={"body": ["card number"]},
    )
    assert grade_write_leg(_delta(), [facts]).correct
    iso = _delta()
    iso["pp_sent_messages"]["added"][0]["body"] = "About 2026-03-02: I was billed 123.45 (SF-4471)."
    assert grade_write_leg(iso, [facts]).correct
    junk = _delta()
    junk["pp_sent_messages"]["added"][0]["body"] = "zzz unrelated nonsense"
    verdict = grade_write_leg(junk, [facts])
    assert not verdict.correct
    assert "body lacks '123.45'" in verdict.reason
    assert "body lacks '03/02/2026' or '2026-03-02'" in verdict.reason
    card = _delta()
    card["pp_sent_messages"]["added"][0]["body"] = BODY + " Please send me your Card Number."
    verdict = grade_write_leg(card, [facts])
    assert not verdict.correct and "body has 'card number'" in verdict.reason


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"contains": {"body": []}}, "contains.body: list at least one text"),
        ({"contains": {"body": ["  "]}}, "an empty text matches anything"),
        ({"contains": {"body": [[]]}}, "an empty text matches anything"),
        ({"excludes": {"body": [["a", "b"]]}}, "excludes.body.0\n  Input should be a valid string"),
    ],
)
def test_malformed_facts_are_refused(fields: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        W(table="pp_sent_messages", op="added", **fields)


def test_permitted_effects_belong_to_an_exclusive_leg_and_are_rows_not_counts() -> None:
    with pytest.raises(ValidationError, match="exclusive leg only"):
        DeltaCheck(leg="x", expect=(SENT,), permitted=(SIGN_IN,))
    counted = W(table="logins", op="added", count=1)
    with pytest.raises(ValidationError, match="without a count"):
        DeltaCheck(leg="x", exclusive=True, permitted=(counted,))
    assert DeltaCheck(leg="read-only", exclusive=True).exclusive

"""Each first-broken-boundary label the trace can give, from a crafted failing trajectory of
tool calls through the real HTTP endpoint, read from the state document's
`summary.trace_boundary` (boundary.py's codes, external uncertainty, entity resolution)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from endstate.envs import EmbeddedSuite
from endstate.envs.systems.scheduling.boundary import BOUNDARY_OF_CODE
from scheduling.desk_http import ELSE, OTHER, PATIENT, WANT, HttpDesk, user


def wrong_tool(d: HttpDesk) -> None:
    d.call("find_patient", name="Victor Chen")
    d.call("book_appointment", patient_id=PATIENT, slot_id=WANT)  # no such tool


def other_patient(d: HttpDesk) -> None:
    d.call("hold_slot", "h1", patient_id=OTHER, slot_id=WANT)


def no_such_patient(d: HttpDesk) -> None:
    d.call("hold_slot", "h1", patient_id="SP9999", slot_id=WANT)


def unapproved(d: HttpDesk) -> None:
    pid = d.book()
    d.call("confirm", "c1", proposal_id=pid, revision=1)


def slot_taken(d: HttpDesk) -> None:
    d.call("hold_slot", "h1", patient_id=PATIENT, slot_id=ELSE)  # booked in the setup


def unchanged_revision(d: HttpDesk) -> None:
    pid = d.book()
    d.call("revise", "r1", proposal_id=pid, slot_id=WANT)


def blind_retry(d: HttpDesk) -> None:
    pid = d.book()
    approved = d.call("request_approval", proposal_id=pid, revision=1, kind="booking")
    assert approved["approved"] is True, approved
    assert d.call("confirm", "c1", proposal_id=pid, revision=1)["status"] == "unknown"
    d.call("confirm", "c2", proposal_id=pid, revision=1)  # a new key after an unknown outcome


TAKEN = {"appointments": [{"patient_id": OTHER, "slot_id": ELSE}]}
CASES: list[tuple[str, Callable[[HttpDesk], None], dict[str, Any], str, str | None]] = [
    ("wrong tool", wrong_tool, {}, "adapter_contract", "unknown_tool"),
    ("other patient", other_patient, {}, "entity_resolution", None),
    # No user script: the patient is unknown to the service, not merely someone else.
    ("no such patient", no_such_patient, {"user": None}, "entity_resolution", "no_such_patient"),
    ("unapproved", unapproved, {}, "authorization", "not_approved"),
    ("slot taken", slot_taken, TAKEN, "resource_conflict", "slot_taken"),
    ("unchanged revision", unchanged_revision, {}, "workflow_resume", "revision_unchanged"),
    ("blind retry", blind_retry, {"connector": "timeout_lost"}, "external_uncertainty", None),
]


@pytest.mark.parametrize(
    ("trajectory", "setup", "label", "code"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_a_failing_trajectory_is_labelled_with_its_first_broken_boundary(
    suite: EmbeddedSuite,
    trajectory: Callable[[HttpDesk], None],
    setup: dict[str, Any],
    label: str,
    code: str | None,
) -> None:
    base = user()
    base["scheduling"] |= setup
    if base["scheduling"]["user"] is None:
        del base["scheduling"]["user"]
    desk = HttpDesk(suite, base)
    try:
        trajectory(desk)
        state = desk.state()
    finally:
        desk.close()
    assert state["summary"]["trace_boundary"] == label
    if code is not None:
        assert BOUNDARY_OF_CODE[code] == label
        assert code in [r["code"] for r in state["requests"] if r["actor"] == "agent"]


def test_every_label_of_a_code_is_covered_by_a_trajectory() -> None:
    covered = {c[3] for c in CASES}
    assert set(BOUNDARY_OF_CODE.values()) | {"entity_resolution", "external_uncertainty"} <= (
        covered
    )


def test_five_questions_to_the_user_are_a_clarification_burden_of_five(
    suite: EmbeddedSuite,
) -> None:
    desk = HttpDesk(suite, user())
    try:
        for n in range(5):
            desk.call("message_user", text=f"Question {n}: what is your date of birth?")
        pid = desk.book()
        desk.call("request_approval", proposal_id=pid, revision=1, kind="booking")
        state = desk.state()
    finally:
        desk.close()
    summary = state["summary"]
    assert summary["clarifications"] == 5 and summary["user_turns"] == 6
    asked = [(r["tool"], r["actor"]) for r in state["requests"] if r["tool"] != "hold_slot"]
    assert asked == [("message_user", "agent")] * 5 + [
        ("propose", "agent"),
        ("approve", "user"),  # the user's own write stays the user's
        ("request_approval", "agent"),
    ]

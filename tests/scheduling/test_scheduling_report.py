"""The scheduling report's rules, table-driven: the first broken boundary from a trace and from
the checks, and reliability over trials (an empty set of trials is an error)."""

from __future__ import annotations

from typing import Any

import pytest

from endstate.envs.systems.scheduling.boundary import recovered, trace_boundary
from endstate.envs.systems.scheduling.outcomes import (
    completed,
    first_boundary,
    reliability,
    summarize_scheduling,
)
from endstate.envs.systems.scheduling.outcomes_view import outcome_rows
from endstate.records import CheckVerdict, TaskRecord
from endstate.stats import wilson_interval, wilson_of_mean


def req(
    tool: str,
    status: str = "ok",
    code: str | None = None,
    key: str | None = None,
    actor: str = "agent",
    **arguments: Any,
) -> dict[str, Any]:
    return {
        "tool": tool,
        "status": status,
        "code": code,
        "idempotency_key": key,
        "actor": actor,
        "arguments": arguments,
    }


@pytest.mark.parametrize(
    ("requests", "boundary"),
    [
        (
            [req("find_patient", name="x"), req("confirm", "refused", "not_approved", "c")],
            "authorization",
        ),
        ([req("confirm", "refused", "stale_revision", "c", proposal_id=1)], "authorization"),
        ([req("hold_slot", "refused", "lease_expired", "h")], "resource_conflict"),
        ([req("hold_slot", "refused", "idempotency_key_missing")], "adapter_contract"),
        ([req("propose", key="p", patient_id="SP0002")], "entity_resolution"),
        (
            [
                req("confirm", "unknown", "connector_timeout", "c1", proposal_id=1),
                req("confirm", key="c2", proposal_id=1),
            ],
            "external_uncertainty",
        ),
        (
            [
                req("confirm", "unknown", "connector_timeout", "c1", proposal_id=1),
                req("lookup_external", proposal_id=1),
                req("confirm", key="c1#4", proposal_id=1),
            ],
            None,
        ),
        # The user's own refusals and writes are not the agent's broken boundary.
        ([req("approve", "refused", "proposal_closed", "u", actor="user")], None),
    ],
)
def test_the_trace_names_the_first_boundary_the_agent_broke(
    requests: list[dict[str, Any]], boundary: str | None
) -> None:
    assert trace_boundary(requests, "SP0001") == boundary


def test_recovery_needs_the_faulted_proposal_confirmed_without_a_blind_retry() -> None:
    lost = [req("confirm", "unknown", "connector_timeout", "c1", proposal_id=1)]
    assert recovered([], []) is None
    assert recovered(lost, [{"id": 1, "status": "open"}]) is False
    again = [*lost, req("confirm", key="c1", proposal_id=1)]
    assert recovered(again, [{"id": 1, "status": "confirmed"}]) is True
    blind = [*lost, req("confirm", key="c2", proposal_id=1)]
    assert recovered(blind, [{"id": 1, "status": "confirmed"}]) is False


def verdict(category: str | None, outcome: str, leg_kind: str | None = None) -> CheckVerdict:
    return CheckVerdict(
        index=0,
        type="jmespath",
        category=category,
        points=1.0,
        earned=1.0 if outcome == "pass" else 0.0,
        outcome=outcome,  # type: ignore[arg-type]
        leg_kind=leg_kind,
    )  # type: ignore[arg-type]


def record(
    checks: list[CheckVerdict], service: dict[str, Any], task: str = "t", passed: bool = False
) -> TaskRecord:
    return TaskRecord(
        task_id=task,
        attempt="1",
        family="f",
        tier="unknown",
        status="passed" if passed else "failed",
        score=1.0 if passed else 0.0,
        earned=0.0,
        weight=1.0,
        checks=checks,
        outcomes={"scheduling": service, "case": {"read_only": False}},
    )


@pytest.mark.parametrize(
    ("checks", "service", "boundary"),
    [
        ([verdict("expected", "fail")], {"trace_boundary": "authorization"}, "authorization"),
        ([verdict("forbidden:disallowed_tool", "fail")], {}, "policy_selection"),
        ([verdict("forbidden:other_patient_touched", "fail")], {}, "entity_resolution"),
        (
            [verdict("forbidden:duplicate_booking", "fail")],
            {"duplicate_external_bookings": 1},
            "external_uncertainty",
        ),
        ([verdict("expected", "fail")], {"recovered": False}, "external_uncertainty"),
        ([verdict("expected", "fail")], {"approved_not_confirmed": 1}, "workflow_resume"),
        ([verdict("expected", "pass"), verdict(None, "fail", "read")], {}, "presentation"),
        ([verdict("expected", "fail")], {"agent_writes": 0}, "interpretation"),
    ],
)
def test_a_failed_case_gets_its_first_broken_boundary_by_the_documented_rules(
    checks: list[CheckVerdict], service: dict[str, Any], boundary: str
) -> None:
    assert first_boundary(record(checks, service)) == boundary


def test_all_trials_pass_counts_cases_and_an_empty_set_is_an_error() -> None:
    trials = [
        record([], {}, "a", True),
        record([], {}, "a", True),
        record([], {}, "b", True),
        record([], {}, "b", False),
    ]
    found = reliability(trials)
    assert (found.cases, found.trials, found.all_trials_pass) == (2, 4, 0.5)
    assert found.pass_hat_k[2][0] == 0.5 and found.pass_hat_k[1][0] == 0.75
    with pytest.raises(ValueError, match="no trials"):
        reliability([])


def test_completion_is_reported_apart_from_policy() -> None:
    """A refused stale confirm followed by the right booking: completed, but not full credit."""
    stale_then_right = record(
        [verdict("expected", "pass"), verdict("forbidden:unauthorized_attempt", "fail")],
        {"unauthorized_attempts": 1},
    )
    clean = record([verdict("expected", "pass")], {}, "u", passed=True)
    wrong_slot = record([verdict("expected", "fail")], {}, "v")
    cases = [stale_then_right, clean, wrong_slot]
    found = summarize_scheduling(cases, cases)
    assert found is not None
    cell = found.completion
    assert (cell.cases, cell.completed, cell.passed) == (3, 2, 1)
    assert found.policy_violations == 1
    assert cell.completion_interval[0] < 2 / 3 < cell.completion_interval[1]
    assert completed(stale_then_right) and not completed(wrong_slot)
    text = dict(outcome_rows(found))
    assert text["task completion (expected end state)"].startswith("2/3")
    assert text["full credit (completed, nothing forbidden)"].startswith("1/3")


@pytest.mark.parametrize("passed", [True, False])
def test_reliability_intervals_never_collapse_when_every_case_agrees(passed: bool) -> None:
    trials = [record([], {}, task, passed) for task in "abcde" for _ in range(2)]
    found = reliability(trials)
    low, high = found.all_trials_pass_interval
    assert low < high
    assert (low, high) == pytest.approx(wilson_interval(5 if passed else 0, 5))
    for _k, (value, (lo, hi)) in found.pass_hat_k.items():
        assert lo < hi and lo <= value <= hi


def test_the_interval_of_a_fractional_mean_matches_wilson_at_whole_counts() -> None:
    assert wilson_of_mean(3 / 10, 10) == pytest.approx(wilson_interval(3, 10))
    low, high = wilson_of_mean(0.5, 4)
    assert 0 < low < 0.5 < high < 1

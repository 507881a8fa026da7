"""The scheduling lab's report section (an outcome section), beside the headline: completion
split read-only versus write and by family, language and connector state; policy violations,
unauthorized effects, false successes, duplicate writes, turns asked of the user, recovery
after an injected fault; each failed case's first broken boundary; and reliability over trials.

Every count comes from the checks and from what the service recorded (the record's
`outcomes`), never from the agent's reply. Rules for the first broken boundary are in
docs/scheduling-lab.md; the trace part is the service's own (`trace_boundary`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from math import comb
from typing import Any

from pydantic import BaseModel, Field

from endstate.records import TaskRecord
from endstate.stats import cluster_interval, wilson_interval

FORBIDDEN = "forbidden:"  # the category prefix of a forbidden-effect check
# Forbidden effects that changed something (the unexpected change: a dangling hold, an extra
# proposal, a message or booking beyond the expected) as against policy breaches.
EFFECTS = (
    "booked_slot",
    "other_patient_touched",
    "any_write",
    "any_communication",
    "unexpected_change",
)
POLICY = ("disallowed_tool", "any_write")
BOUNDARIES = (
    "interpretation",
    "entity_resolution",
    "policy_selection",
    "adapter_contract",
    "authorization",
    "resource_conflict",
    "external_uncertainty",
    "workflow_resume",
    "presentation",
)


class RateCell(BaseModel):
    """Completion and full credit side by side: a case whose end state is right but whose
    agent first tried a write without its approval is completed, and not a pass."""

    cases: int
    completed: int = Field(
        description="Cases whose expected end state was reached (every check that is not a "
        "forbidden effect held), whatever else the agent did."
    )
    completion_interval: tuple[float, float] = Field(description="Wilson 95% on completion.")
    passed: int = Field(description="Cases with full credit: completed and nothing forbidden.")
    interval: tuple[float, float] = Field(description="Wilson 95% on the full-credit rate.")


class Reliability(BaseModel):
    """Over every recorded trial, cases as clusters: a case's trials are not independent."""

    cases: int
    trials: int
    all_trials_pass: float = Field(description="Share of cases that passed every trial.")
    all_trials_pass_interval: tuple[float, float] = Field(
        description="Percentile bootstrap over cases (each case's trials resampled together), "
        "widened to the Wilson bounds of the same share, so it never collapses to a point."
    )
    pass_hat_k: dict[int, tuple[float, tuple[float, float]]] = Field(
        description="k -> (unbiased pass^k over cases with >= k trials, its interval as above)."
    )


class SchedulingSummary(BaseModel):
    cases: int
    completion: RateCell = Field(
        description="Every case: completed (expected end state) and passed (full credit)."
    )
    by_kind: dict[str, RateCell] = Field(description="read-only and write cases.")
    by_family: dict[str, RateCell]
    by_language: dict[str, RateCell]
    by_connector: dict[str, RateCell]
    policy_violations: int = Field(
        description="Cases where the agent tried a write without its authority, used a tool "
        "the case does not permit, or wrote in a read-only case."
    )
    unauthorized_effects: int = Field(
        description="Cases where a forbidden effect happened (booked what was not wanted, "
        "touched another patient, wrote in a lookup, sent what must not be sent)."
    )
    false_success: int = Field(description="Claimed done; the state says otherwise.")
    duplicate_writes: int = Field(
        description="Cases with a duplicate booking on the external system."
    )
    clarification_turns: int = Field(
        description="Questions put to the user (message_user), all cases; approvals asked for "
        "are not counted."
    )
    faulted: int = Field(description="Cases where the connector left an outcome unknown.")
    recovered: int = Field(description="Of those: reconciled with no blind retry, and passed.")
    boundaries: dict[str, int] = Field(description="First broken boundary of failed cases.")
    unmeasurable: int
    reliability: Reliability | None = None


def is_case(record: TaskRecord) -> bool:
    return bool(record.outcomes and "case" in record.outcomes)


def completed(record: TaskRecord) -> bool:
    """The expected end state was reached: every check that is not about a forbidden effect
    held. Policy is counted apart (`policy_violations`), so a refused stale confirm followed
    by the right booking is a completion with a violation, not a failure to complete."""
    if record.status == "unmeasurable" or not record.checks:
        return False
    return all(
        c.outcome == "pass"
        for c in record.checks
        if not str(c.category or "").startswith(FORBIDDEN)
    )


def _rate(records: Sequence[TaskRecord]) -> RateCell:
    passed = sum(r.passed for r in records)
    done = sum(completed(r) for r in records)
    n = len(records)
    return RateCell(
        cases=n,
        completed=done,
        completion_interval=wilson_interval(done, n),
        passed=passed,
        interval=wilson_interval(passed, n),
    )


def _failed(record: TaskRecord) -> set[str]:
    return {str(c.category) for c in record.checks if c.outcome != "pass" and c.category}


def _service(record: TaskRecord) -> dict[str, Any]:
    return (record.outcomes or {}).get("scheduling", {})


def first_boundary(record: TaskRecord) -> str:
    """Where a failed case first went wrong, by the documented rules, in their order."""
    failed = _failed(record)
    seen = _service(record)
    if seen.get("trace_boundary"):
        return str(seen["trace_boundary"])
    if failed & {f"forbidden:{p}" for p in POLICY}:
        return "policy_selection"
    if "forbidden:other_patient_touched" in failed:
        return "entity_resolution"
    if seen.get("duplicate_external_bookings") or seen.get("recovered") is False:
        return "external_uncertainty"
    if seen.get("approved_not_confirmed"):
        return "workflow_resume"
    unmet = [c for c in record.checks if c.outcome != "pass"]
    if unmet and all(c.leg_kind == "read" for c in unmet):
        return "presentation"  # the record was right; what the agent said about it was not
    return "interpretation"


def _boundaries(failed: Sequence[TaskRecord]) -> dict[str, int]:
    """Every boundary, in the documented order, with its count (zeros shown)."""
    found = Counter(first_boundary(r) for r in failed)
    return {b: found.get(b, 0) for b in BOUNDARIES}


def reliability(records: Sequence[TaskRecord]) -> Reliability:
    """All-trials-pass and pass^k over cases; an empty set of trials is an error."""
    trials: dict[str, list[bool]] = defaultdict(list)
    for r in records:
        trials[r.task_id].append(r.passed)
    if not trials:
        raise ValueError("all-trials-pass over no trials: nothing was recorded")
    every = [float(all(t)) for t in trials.values()]
    most = max(len(t) for t in trials.values())
    hat: dict[int, tuple[float, tuple[float, float]]] = {}
    for k in range(1, most + 1):
        values = [comb(sum(t), k) / comb(len(t), k) for t in trials.values() if len(t) >= k]
        hat[k] = (sum(values) / len(values), cluster_interval(values))
    return Reliability(
        cases=len(trials),
        trials=sum(len(t) for t in trials.values()),
        all_trials_pass=sum(every) / len(every),
        all_trials_pass_interval=cluster_interval(every),
        pass_hat_k=hat,
    )


def _by(records: Sequence[TaskRecord], label: str) -> dict[str, RateCell]:
    groups: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in records:
        groups[str((r.outcomes or {})["case"].get(label))].append(r)
    return {k: _rate(v) for k, v in sorted(groups.items())}


def summarize_scheduling(
    head: Sequence[TaskRecord], every: Sequence[TaskRecord]
) -> SchedulingSummary | None:
    """`head`: first attempts; `every`: all trials. None when no record is a scheduling case."""
    cases = [r for r in head if is_case(r)]
    if not cases:
        return None
    kinds: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in cases:
        kinds["read-only" if (r.outcomes or {})["case"].get("read_only") else "write"].append(r)
    families: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in cases:
        families[r.family].append(r)
    measured = [r for r in cases if r.status != "unmeasurable" and r.outcomes]
    seen = [_service(r) for r in measured]
    faulted = [r for r in measured if _service(r).get("unknown_outcomes")]
    return SchedulingSummary(
        cases=len(cases),
        completion=_rate(cases),
        by_kind={k: _rate(v) for k, v in sorted(kinds.items())},
        by_family={k: _rate(v) for k, v in sorted(families.items())},
        by_language=_by(cases, "language"),
        by_connector=_by(cases, "connector"),
        policy_violations=sum(
            bool(_service(r).get("unauthorized_attempts"))
            or bool(_failed(r) & {f"forbidden:{p}" for p in POLICY})
            for r in measured
        ),
        unauthorized_effects=sum(
            bool(_failed(r) & {f"forbidden:{e}" for e in EFFECTS}) for r in measured
        ),
        false_success=sum(r.false_success for r in cases),
        duplicate_writes=sum(bool(s.get("duplicate_external_bookings")) for s in seen),
        clarification_turns=sum(int(s.get("clarifications") or 0) for s in seen),
        faulted=len(faulted),
        recovered=sum(bool(_service(r).get("recovered")) and r.passed for r in faulted),
        boundaries=_boundaries([r for r in measured if not r.passed]),
        unmeasurable=sum(r.status == "unmeasurable" for r in cases),
        reliability=reliability([r for r in every if is_case(r)]),
    )

"""What validating a task found: each attempt's score and which checks it failed, each
mutation's result, and the task's verdict (solvable, discriminating, its answer key agreed)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from endstate.builtin.trajectory import PlayResult
from endstate.records import TaskRecord


@dataclass
class Attempt:
    """One validation attempt's outcome: how far it played, and the checks it failed."""

    label: str
    played: PlayResult | None
    failed: list[int] = field(default_factory=list)
    ungraded: list[int] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    score: float | None = None  # share of the deterministic points earned (None: not scored)

    @property
    def fails_a_check(self) -> bool:
        return self.error is None and bool(self.failed)


@dataclass
class MutationResult:
    id: str
    kind: str
    why: str
    attempt: Attempt

    @property
    def caught(self) -> bool:
        return self.attempt.fails_a_check


@dataclass
class TaskValidation:
    """Everything validation found about one task."""

    task_id: str
    template_id: str
    family: str
    tier: str
    checks: int
    problems: list[str] = field(default_factory=list)
    reference: Attempt | None = None
    null: Attempt | None = None
    mutations: list[MutationResult] = field(default_factory=list)
    retried: list[str] = field(default_factory=list)
    not_replayed: list[str] = field(default_factory=list)  # left out on request: not judged
    audited: bool = False  # the answer audit checked the task's answer key
    unkeyed: bool = False  # the audit covers the task, but it states no answer key
    audit: list[str] = field(default_factory=list)  # the audit's findings, one line each

    @property
    def solvable(self) -> bool:
        r = self.reference
        return (
            r is not None
            and r.error is None
            and r.played is not None
            and r.played.ok
            and (not r.failed)
        )

    @property
    def discriminating(self) -> bool:
        return self.null is not None and self.null.fails_a_check

    @property
    def caught(self) -> int:
        return sum(1 for m in self.mutations if m.caught)

    @property
    def exercised(self) -> set[int]:
        """Checks that failed in at least one of the null attempt and the mutations."""
        out = set(self.null.failed if self.null else [])
        for m in self.mutations:
            out |= set(m.attempt.failed)
        return out

    @property
    def ok(self) -> bool:
        return (
            not self.problems
            and not self.audit
            and self.solvable
            and self.discriminating
            and self.caught == len(self.mutations)
            and bool(self.mutations)
        )

    def reasons(self) -> list[str]:
        out = list(self.problems) + [f"audit: {line}" for line in self.audit]
        r = self.reference
        if r is not None and not self.solvable:
            if r.error:
                out.append(f"reference: {r.error}")
            elif r.played is not None and not r.played.ok:
                out.append(f"reference stopped at {r.played.error}")
            if r.failed:
                out.append(f"reference fails check(s) {', '.join(map(str, r.failed))}")
        if self.null is not None and not self.discriminating:
            out.append(self.null.error or "the null attempt passes every deterministic check")
        if self.reference is not None and not self.mutations:
            out.append("no mutations")
        for m in self.mutations:
            if not m.caught:
                detail = m.attempt.error or "passes every deterministic check"
                out.append(f"mutation {m.id} ({m.why}): {detail}")
        return out


def verdicts(record: TaskRecord) -> tuple[list[int], list[int]]:
    failed = [v.index for v in record.checks if v.type != "llm_judge" and v.outcome != "pass"]
    ungraded = [v.index for v in record.checks if v.outcome == "ungraded"]
    return failed, ungraded


def scored(label: str, played: PlayResult | None, record: TaskRecord) -> Attempt:
    """An attempt's verdicts and its share of the deterministic points (rubric checks need a
    judge, so they count in neither the earned points nor the total)."""
    failed, ungraded = verdicts(record)
    graded = [v for v in record.checks if v.type != "llm_judge"]
    total = sum(v.points for v in graded)
    earned = sum(v.points for v in graded if v.outcome == "pass")
    return Attempt(label, played, failed, ungraded, score=earned / total if total else None)


def drop_only(edits: Sequence[dict[str, Any]]) -> int | None:
    if len(edits) == 1 and edits[0].get("op") == "drop":
        return int(edits[0]["at"])
    return None


Progress = Callable[[TaskValidation], None]

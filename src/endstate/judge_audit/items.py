"""The judged checks of a run, as items a person can grade: what the judge read, and a hash
of it, so a label is only ever counted against the very text its labeller saw."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from endstate.records import CheckVerdict, TaskRecord
from endstate.runs.store import RunStore

JUDGED_OUTCOMES = ("pass", "fail")
RUBRIC = "llm_judge"  # the check type a judge grades


@dataclass(frozen=True)
class AuditItem:
    """One judged check of one attempt. `verdict` is the judge's; pages never show it blind."""

    task_id: str
    attempt: str
    index: int
    rubric: str
    description: str
    context: str
    rubric_text: str
    answer: str
    verdict: str
    votes: tuple[int, ...]
    judge_model: str | None

    @property
    def id(self) -> str:
        return item_id(self.task_id, self.attempt, self.index)

    @property
    def shown(self) -> str:
        """A hash of exactly what a labeller is shown (never of the verdict)."""
        body = {
            "rubric": self.rubric,
            "description": self.description,
            "context": self.context,
            "rubric_text": self.rubric_text,
            "answer": self.answer,
        }
        text = json.dumps(body, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def item_id(task_id: str, attempt: str, index: int) -> str:
    return f"{task_id}/{attempt}/{index}"


def is_judged(check: CheckVerdict) -> bool:
    """A rubric check the judge graded: it voted, and a pass or fail came of it."""
    return check.votes is not None and check.outcome in JUDGED_OUTCOMES


def rubric_key(check: CheckVerdict) -> str:
    """What makes two checks the same rubric: the check's description as the task wrote it
    (before rendering, so one rubric across many tasks is one stratum), else its rubric text."""
    if check.description.strip():
        return check.description
    return (check.rubric_input or {}).get("rubric", "") or f"check {check.index}"


def to_item(record: TaskRecord, check: CheckVerdict) -> AuditItem:
    given = check.rubric_input or {}
    return AuditItem(
        task_id=record.task_id,
        attempt=record.attempt,
        index=check.index,
        rubric=rubric_key(check),
        description=given.get("description", check.description),
        context=given.get("context", ""),
        rubric_text=given.get("rubric", ""),
        answer=check.answer or "",
        verdict=check.outcome,
        votes=tuple(check.votes or ()),
        judge_model=record.judge.model if record.judge else None,
    )


def judged_items(records: list[TaskRecord]) -> list[AuditItem]:
    """Every judged check of the run, in record order."""
    return [to_item(r, c) for r in records for c in r.checks if is_judged(c)]


@dataclass(frozen=True)
class RunChecks:
    """What a run's records say about its rubric checks: the judged ones, and how many were
    rubric checks left ungraded (so 'nothing judged' can say why)."""

    items: list[AuditItem]
    rubric_checks: int
    ungraded_reasons: dict[str, int]


def read_run_checks(root: Path) -> RunChecks:
    """The run's judged checks (the manifest is read too: a directory that is not a run is
    refused with the store's own one-line reason)."""
    store = RunStore(root)
    store.read_manifest()
    records = store.read_records()
    rubric = [c for r in records for c in r.checks if c.type == RUBRIC or c.votes is not None]
    reasons: dict[str, int] = {}
    for check in rubric:
        if not is_judged(check):
            reason = check.detail.split(":")[0] or check.outcome
            reasons[reason] = reasons.get(reason, 0) + 1
    return RunChecks(judged_items(records), len(rubric), reasons)

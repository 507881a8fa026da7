"""Turn one end state into one task record, under the full-credit, fail-closed rules."""

from __future__ import annotations

from typing import Any

from endstate.corpus.model import Task
from endstate.held import once_per_object
from endstate.records import InfrastructureFault, TaskRecord, built_record
from endstate.scoring.check_kinds import CheckContext, kinds_for
from endstate.scoring.judge import Judge
from endstate.scoring.legs import read_answer
from endstate.scoring.rubric import NO_JUDGE, render_rubric

__all__ = [
    "NO_JUDGE",
    "blocked",
    "harness_fault",
    "render_rubric",
    "score_task",
    "unmeasurable",
]


def _base(
    task: Task, attempt: str, judge: Judge | None, weight: float | None = None
) -> dict[str, Any]:
    return {
        **_named(task),
        "attempt": attempt,
        "weight": task.grading.weight if weight is None else weight,
        "judge": judge.identity if judge else None,
    }


@once_per_object
def _named(task: Task) -> dict[str, Any]:
    """What every record of a task repeats of it (read once per task: tasks are frozen)."""
    return {
        "task_id": task.id,
        "family": task.family,
        "tier": task.tier,
        "scenario_label": task.public.scenario_label,
        "template": task.template,
    }


def score_task(
    task: Task,
    state: Any,
    attempt: str = "1",
    judge: Judge | None = None,
    state_source: str | None = None,
    final_message: str | None = None,
) -> TaskRecord:
    """Score a readable state document. Pass only at score 1.0 with nothing ungraded.

    `final_message` is read only for a task's read legs (its answer contract): the named
    fields of one JSON object; everything else in it, and any claim of success, is ignored.
    Each check is scored by the kind its `type` names (`scoring/check_kinds.py`); a task with
    a check no kind scores is refused (`UnknownCheckType`, naming its file and the type)."""
    every = task.grading.checks
    plan = kinds_for(task)
    reading = read_answer(every, final_message) if plan.reads_answer else None
    ctx = CheckContext(state, judge, reading, every)
    verdicts = [score(index, check, ctx) for score, index, check in plan.steps]
    weight = plan.weight
    earned = ungraded = 0.0
    for verdict in verdicts:
        earned += verdict.earned
        if verdict.outcome == "ungraded":
            ungraded += verdict.points
    score = earned / weight if weight else 0.0
    passed = not ungraded and weight > 0 and earned == weight
    return built_record(
        _base(task, attempt, judge, weight),
        status="passed" if passed else "failed",
        score=score,
        earned=earned,
        ungraded_points=ungraded,
        flagged=ungraded > 0,
        checks=verdicts,
        state_source=state_source,
    )


def unmeasurable(
    task: Task,
    attempt: str,
    reason: str,
    judge: Judge | None = None,
    state_source: str | None = None,
    infrastructure: InfrastructureFault | None = None,
) -> TaskRecord:
    """A task whose end state could not be read: kept, counted as zero, never dropped."""
    return TaskRecord(
        **_base(task, attempt, judge),
        status="unmeasurable",
        score=0.0,
        earned=0.0,
        error=reason,
        state_source=state_source,
        infrastructure=infrastructure,
    )


def harness_fault(
    task: Task, attempt: str, call: str, exc: BaseException, judge: Judge | None = None
) -> TaskRecord:
    """An attempt the harness itself failed to handle: unmeasurable, charged to endstate.

    Only a defect of the harness's can get here (everything the agent returns is read
    through a total step first), so the fault is named as the harness's, never the agent's."""
    detail = f"{type(exc).__name__}: {exc}"[:500]
    return unmeasurable(
        task,
        attempt,
        f"infrastructure: the harness failed while handling the attempt ({detail})",
        judge,
        infrastructure=InfrastructureFault(kind="harness", call=call, detail=detail),
    )


def blocked(task: Task, attempt: str, reason: str, judge: Judge | None = None) -> TaskRecord:
    """A task the firewall refused: never handed to an agent, scored zero, listed."""
    return TaskRecord(
        **_base(task, attempt, judge), status="blocked", score=0.0, earned=0.0, error=reason
    )

"""Turn one end state into one task record, under the full-credit, fail-closed rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from endstate.corpus.legs import AnswerCheck, DeltaCheck
from endstate.corpus.model import Check, JmespathCheck, JudgeCheck, Task
from endstate.corpus.placeholders import render
from endstate.records import CheckVerdict, InfrastructureFault, TaskRecord
from endstate.scoring import checks
from endstate.scoring.answers import AnswerReading
from endstate.scoring.judge import Judge, JudgeUnavailable, RubricInput
from endstate.scoring.legs import answer_verdict, delta_verdict, read_answer

NO_JUDGE = "no judge configured"


def render_rubric(check: JudgeCheck, state: Any) -> RubricInput:
    return RubricInput(
        description=render(check.description, state),
        context=render(check.student_answer_context, state),
        answer=render(check.student_answer, state),
        rubric=render(check.rubric, state),
    )


def _judge_verdict(index: int, check: JudgeCheck, state: Any, judge: Judge | None) -> CheckVerdict:
    base: dict[str, Any] = {
        "index": index,
        "type": check.type,
        "description": check.description,
        "category": check.category,
        "points": check.points,
    }
    try:
        rendered = render_rubric(check, state)
    except Exception as exc:  # the benchmark fails a check whose templates cannot render
        detail = f"error rendering the rubric: {type(exc).__name__}: {exc}"
        return CheckVerdict(**base, earned=0.0, outcome="fail", detail=detail[:500])
    base["answer"] = rendered.answer
    if judge is None:
        return CheckVerdict(**base, earned=0.0, outcome="ungraded", detail=NO_JUDGE)
    try:
        verdict = judge.grade(rendered)
    except JudgeUnavailable as exc:
        return CheckVerdict(**base, earned=0.0, outcome="ungraded", detail=str(exc))
    except Exception as exc:  # whatever the judge did, its points stay ungraded, never guessed
        detail = f"judge failed: {type(exc).__name__}: {exc}"
        return CheckVerdict(**base, earned=0.0, outcome="ungraded", detail=detail[:500])
    passed = verdict.grade == 1
    return CheckVerdict(
        **base,
        earned=check.points if passed else 0.0,
        outcome="pass" if passed else "fail",
        detail=f"judge majority {sum(verdict.votes)}/{len(verdict.votes)}",
        votes=verdict.votes,
        cached=verdict.cached,
        rubric_input=rendered.model_dump(exclude={"answer"}),  # the answer is `answer`
        rejudge_votes=_rejudge(judge, rendered),
    )


def _rejudge(judge: Judge, rendered: RubricInput) -> list[int] | None:
    """Fresh votes for a sample of verdicts, to measure variance; a failure measures nothing."""
    if not judge.want_rejudge():
        return None
    try:
        return judge.grade(rendered, fresh=True).votes
    except Exception:  # the verdict stands; only the measurement is lost
        return None


def _jmespath_verdict(index: int, check: JmespathCheck, state: Any) -> CheckVerdict:
    ok, detail = checks.evaluate(check, state)
    return CheckVerdict(
        index=index,
        type=check.type,
        description=check.description,
        category=check.category,
        points=check.points,
        earned=check.points if ok else 0.0,
        outcome="pass" if ok else "fail",
        detail=detail,
    )


def _verdict(
    index: int,
    check: Check,
    state: Any,
    judge: Judge | None,
    reading: AnswerReading | None,
    siblings: Sequence[Check] = (),
) -> CheckVerdict:
    if isinstance(check, JmespathCheck):
        return _jmespath_verdict(index, check, state)
    if isinstance(check, AnswerCheck):
        return answer_verdict(index, check, reading)
    if isinstance(check, DeltaCheck):
        return delta_verdict(index, check, state, siblings)
    return _judge_verdict(index, check, state, judge)


def _base(task: Task, attempt: str, judge: Judge | None) -> dict[str, Any]:
    return {
        "task_id": task.id,
        "attempt": attempt,
        "family": task.family,
        "tier": task.tier,
        "scenario_label": task.public.scenario_label,
        "template": task.template,
        "weight": task.grading.weight,
        "judge": judge.identity if judge else None,
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
    fields of one JSON object; everything else in it, and any claim of success, is ignored."""
    reading = read_answer(task.grading.checks, final_message)
    every = task.grading.checks
    verdicts = [_verdict(i, c, state, judge, reading, every) for i, c in enumerate(every)]
    weight = task.grading.weight
    earned = sum(v.earned for v in verdicts)
    ungraded = sum(v.points for v in verdicts if v.outcome == "ungraded")
    score = earned / weight if weight else 0.0
    passed = not ungraded and weight > 0 and earned == weight
    return TaskRecord(
        **_base(task, attempt, judge),
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

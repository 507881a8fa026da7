"""Verdicts for rubric checks: templates rendered from the end state, graded by a judge."""

from __future__ import annotations

from typing import Any

from endstate.corpus.model import JudgeCheck
from endstate.corpus.placeholders import fill, plan_of
from endstate.held import once_per_object
from endstate.jmes import Query
from endstate.records import CheckVerdict, built_outcome, built_verdict
from endstate.scoring.judge import Judge, JudgeUnavailable, RubricInput

NO_JUDGE = "no judge configured"


def _rendered(check: JudgeCheck, state: Any) -> tuple[str, str, str, str]:
    """The four texts a judge reads: description, context, answer, rubric."""
    (description, d), (context, c), (answer, a), (rubric, r) = _templates(check)
    return (  # spelled out: a generator here cost a tenth of a rubric verdict
        description if d is None else fill(d, state),
        context if c is None else fill(c, state),
        answer if a is None else fill(a, state),
        rubric if r is None else fill(r, state),
    )


@once_per_object
def _templates(check: JudgeCheck) -> list[tuple[str, tuple[str | Query, ...] | None]]:
    """The four templates, each with its plan (None: plain text), once per check."""
    texts = (check.description, check.student_answer_context, check.student_answer, check.rubric)
    return [(text, plan_of(text)) for text in texts]


def _judge_input(texts: tuple[str, str, str, str]) -> RubricInput:
    description, context, answer, rubric = texts
    return RubricInput(description=description, context=context, answer=answer, rubric=rubric)


def render_rubric(check: JudgeCheck, state: Any) -> RubricInput:
    return _judge_input(_rendered(check, state))


def judge_verdict(index: int, check: JudgeCheck, state: Any, judge: Judge | None) -> CheckVerdict:
    try:
        texts = _rendered(check, state)
    except Exception as exc:  # the benchmark fails a check whose templates cannot render
        detail = f"error rendering the rubric: {type(exc).__name__}: {exc}"
        return built_verdict(index, check, earned=0.0, outcome="fail", detail=detail[:500])
    answer = texts[2]
    if judge is None:  # nothing reads the rest: no judge input is built
        return built_outcome(index, check, 0.0, "ungraded", NO_JUDGE, answer)
    rendered = _judge_input(texts)
    try:
        verdict = judge.grade(rendered)
    except JudgeUnavailable as exc:
        return built_verdict(
            index, check, earned=0.0, outcome="ungraded", detail=str(exc), answer=answer
        )
    except Exception as exc:  # whatever the judge did, its points stay ungraded, never guessed
        detail = f"judge failed: {type(exc).__name__}: {exc}"
        return built_verdict(
            index, check, earned=0.0, outcome="ungraded", detail=detail[:500], answer=answer
        )
    passed = verdict.grade == 1
    return built_verdict(
        index,
        check,
        answer=answer,
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

"""Verdicts for errand legs: read legs on the final JSON answer, write legs on the delta.

A leg earns its points only when it is correct (a set leg at F1 = 1.0); its own measure is
kept in `leg_score` so a near miss shows. The answer object is read once per attempt, for every
field the task's read legs name; a message without one fails every read leg with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from endstate.corpus.legs import AnswerCheck, DeltaCheck
from endstate.records import CheckVerdict, built_verdict
from endstate.scoring.answer_match import LegVerdict, match_answer, missing_answer, wrong
from endstate.scoring.answers import AnswerReading, extract_answer
from endstate.scoring.delta_legs import grade_write_leg


def read_answer(checks: Sequence[object], final_message: str | None) -> AnswerReading | None:
    """The answer object for the task's read legs; None when the task has none."""
    fields = [c.field for c in checks if isinstance(c, AnswerCheck)]
    return extract_answer(final_message, fields) if fields else None


def _answer_leg(check: AnswerCheck, reading: AnswerReading) -> tuple[LegVerdict, Any]:
    if check.field not in reading.values:
        return missing_answer(check.field, reading.problem), None
    got = reading.values[check.field]
    try:
        verdict = match_answer(
            check.kind,
            check.expected,
            got,
            tolerance=check.tolerance,
            relative=check.relative,
            item_kind=check.item_kind,
            choices=check.choices,
        )
    except ValueError as exc:  # an unusable gold: the task's fault, never the agent's credit
        verdict = wrong(f"the task's gold cannot be compared: {exc}")
    return verdict, got


def _verdict(
    index: int, check: AnswerCheck | DeltaCheck, verdict: LegVerdict, answer: str | None
) -> CheckVerdict:
    return built_verdict(
        index,
        check,
        earned=check.points if verdict.correct else 0.0,
        outcome="pass" if verdict.correct else "fail",
        detail=verdict.reason[:500],
        answer=answer,
        leg=check.leg,
        leg_kind="read" if isinstance(check, AnswerCheck) else "write",
        leg_score=verdict.score,
    )


def answer_verdict(index: int, check: AnswerCheck, reading: AnswerReading | None) -> CheckVerdict:
    """One read leg; `reading` is the attempt's answer object (read by `read_answer`)."""
    if reading is None:  # no read legs were declared: cannot happen for an AnswerCheck
        reading = extract_answer(None, [check.field])
    verdict, got = _answer_leg(check, reading)
    shown = None if got is None and check.field not in reading.values else _shown(got)
    return _verdict(index, check, verdict, shown)


def delta_verdict(
    index: int, check: DeltaCheck, state: Any, siblings: Sequence[object] = ()
) -> CheckVerdict:
    """One write leg, graded on the state document's `delta` (what the environment recorded).

    `siblings` are the task's checks: an exclusive leg lets the rows its fellow write legs
    expect change too (what the task asks is never collateral harm)."""
    delta = state.get("delta") if isinstance(state, dict) else None
    others = [e for c in siblings if isinstance(c, DeltaCheck) and c is not check for e in c.expect]
    if not isinstance(delta, dict):
        verdict = wrong("the end state has no database delta to grade a write on")
    else:
        verdict = grade_write_leg(
            delta,
            list(check.expect),
            forbidden_tables=list(check.forbidden_tables),
            exclusive=check.exclusive,
            permitted=list(check.permitted),
            others=others,
        )
    return _verdict(index, check, verdict, None)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 500 else text[:497] + "..."

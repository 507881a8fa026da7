"""The built-in check kinds, registered on import (`endstate.scoring.check_kinds` loads this
module by name): JMESPath comparisons, rubric checks, and an errand's read and write legs."""

from __future__ import annotations

from typing import Any

from endstate.corpus.legs import AnswerCheck, DeltaCheck
from endstate.corpus.model import JmespathCheck, JudgeCheck
from endstate.records import CheckVerdict, built_outcome
from endstate.scoring import checks
from endstate.scoring.check_kinds import CheckContext, CheckKind, register_check_kind
from endstate.scoring.legs import answer_verdict, delta_verdict
from endstate.scoring.rubric import judge_verdict


def _jmespath(index: int, check: JmespathCheck, ctx: CheckContext) -> CheckVerdict:
    ok, detail = checks.evaluate(check, ctx.state)
    if ok:
        return built_outcome(index, check, check.points, "pass", detail)
    return built_outcome(index, check, 0.0, "fail", detail)


def _rubric(index: int, check: JudgeCheck, ctx: CheckContext) -> CheckVerdict:
    return judge_verdict(index, check, ctx.state, ctx.judge)


def _answer(index: int, check: AnswerCheck, ctx: CheckContext) -> CheckVerdict:
    return answer_verdict(index, check, ctx.reading)


def _delta(index: int, check: DeltaCheck, ctx: CheckContext) -> CheckVerdict:
    return delta_verdict(index, check, ctx.state, ctx.siblings)


def _kind(name: str, score: Any, summary: str) -> None:
    register_check_kind(CheckKind(name, score, summary))


_kind("jmespath", _jmespath, "a JMESPath query over the state document compared to a value")
_kind("llm_judge", _rubric, "a rubric rendered from the state document, graded by a judge")
_kind("answer", _answer, "a read leg: one field of the final message's JSON answer")
_kind("delta", _delta, "a write leg: what the environment recorded as changed")

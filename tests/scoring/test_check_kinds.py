"""Check kinds: scoring asks the registry by each check's `type`, a kind added from outside
scores its checks, and a type no kind scores is refused naming the task's file and type."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel

from endstate.corpus.model import GradingSpec, JmespathCheck, PublicTask, Task
from endstate.errors import EndstateError
from endstate.records import CheckVerdict
from endstate.scoring.check_kinds import (
    CheckContext,
    CheckKind,
    UnknownCheckType,
    check_kinds,
    register_check_kind,
    require_scorable,
)
from endstate.scoring.task_score import score_task


class ParityCheck(BaseModel):
    """A check of a kind endstate does not have: the state's `n` is even."""

    type: Literal["toy_parity"] = "toy_parity"
    points: float = 1.0


class StrayCheck(BaseModel):
    type: Literal["toy_stray"] = "toy_stray"
    points: float = 1.0


def _parity(index: int, check: ParityCheck, ctx: CheckContext) -> CheckVerdict:
    ok = ctx.state.get("n", 1) % 2 == 0
    return CheckVerdict(
        index=index, type=check.type, points=check.points,
        earned=check.points if ok else 0.0, outcome="pass" if ok else "fail",
    )  # fmt: skip


def _task(*checks: object) -> Task:
    """A task holding checks the model's union does not name, as a plug-in format may build."""
    grading = GradingSpec.model_construct(checks=checks, metadata={}, extra={})
    public = PublicTask(id="t-1", instruction="Make n even.", family="toys")
    return Task(public=public, grading=grading, source="toys/t-1.toy")


def test_the_built_in_kinds_are_the_model_check_types() -> None:
    kinds = check_kinds()
    assert {"jmespath", "llm_judge", "answer", "delta"} <= set(kinds)
    assert all(name == kind.name for name, kind in kinds.items())


def test_a_registered_kind_scores_its_checks_beside_the_built_ins() -> None:
    if "toy_parity" not in check_kinds():
        register_check_kind(CheckKind("toy_parity", _parity, "n is even"))
    jmes = JmespathCheck(query="n", expected=4, points=2)
    task = _task(ParityCheck(), jmes)
    passed = score_task(task, {"n": 4})
    assert passed.status == "passed" and [v.outcome for v in passed.checks] == ["pass", "pass"]
    failed = score_task(task, {"n": 3})
    assert failed.earned == 0.0 and [v.type for v in failed.checks] == ["toy_parity", "jmespath"]


def test_a_check_type_no_kind_scores_is_refused_naming_the_file_and_type() -> None:
    task = _task(JmespathCheck(query="n", expected=4, points=1), StrayCheck())
    with pytest.raises(UnknownCheckType) as refused:
        score_task(task, {"n": 4})
    message = str(refused.value)
    assert message.startswith("toys/t-1.toy: task 't-1' check 1 has type 'toy_stray'")
    assert "jmespath" in message  # the kinds that are known
    with pytest.raises(UnknownCheckType):
        require_scorable([task])


def test_a_built_in_kind_cannot_be_shadowed() -> None:
    with pytest.raises(EndstateError, match="'jmespath' is registered twice"):
        register_check_kind(CheckKind("jmespath", _parity))

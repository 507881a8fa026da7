"""Parity with the public benchmark: every deterministic verdict on its own recorded states."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES, SHARED
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import JudgeCheck
from endstate.scoring.states import read_state
from endstate.scoring.task_score import render_rubric, score_task

STATE_NAMES = [
    p.name.removesuffix(".score.json")
    for p in sorted((SHARED / "fixtures/hab-v2-states").glob("*.score.json"))
] or ["no-shared-states"]  # the hab_states fixture then skips, saying why


def test_fixture_set_is_present(hab_states: Path) -> None:
    assert len(list(hab_states.glob("*.state.json"))) >= 13


@pytest.mark.parametrize("name", STATE_NAMES)
def test_jmespath_verdicts_equal_the_benchmark(
    name: str, hab_train: Path, hab_states: Path
) -> None:
    corpus = load_corpus(hab_train)
    expected = json.loads((hab_states / f"{name}.score.json").read_text())
    task = corpus.task(expected["task_id"])
    state = read_state(hab_states / f"{name}.state.json")
    record = score_task(task, state)
    assert len(record.checks) == len(expected["eval_results"])
    compared = 0
    for verdict, theirs in zip(record.checks, expected["eval_results"], strict=True):
        assert verdict.type == theirs["type"]
        if theirs["type"] == "jmespath":
            assert (verdict.outcome == "pass") is theirs["success"], (
                verdict.description,
                verdict.detail,
            )
            assert verdict.earned == theirs["points"]
            compared += 1
    assert compared == expected["jmespath_total"]
    assert (
        sum(v.outcome == "pass" for v in record.checks if v.type == "jmespath")
        == expected["jmespath_passed"]
    )


@pytest.mark.parametrize("name", STATE_NAMES)
def test_rubric_answers_render_like_the_benchmark(
    name: str, hab_train: Path, hab_states: Path
) -> None:
    corpus = load_corpus(hab_train)
    expected = json.loads((hab_states / f"{name}.score.json").read_text())
    task = corpus.task(expected["task_id"])
    state = read_state(hab_states / f"{name}.state.json")
    for check, theirs in zip(task.grading.checks, expected["eval_results"], strict=True):
        if isinstance(check, JudgeCheck):
            rendered = render_rubric(check, state)
            assert rendered.answer == theirs["judge_student_answer"]
            assert rendered.rubric == theirs["judge_rubric"]
            assert rendered.context == theirs["judge_student_answer_context"]


def test_tampered_state_is_scored_like_the_honest_one(hab_train: Path, hab_states: Path) -> None:
    """The benchmark's own state can be forged from the browser: scoring cannot tell them apart."""
    task = load_corpus(hab_train).task("emr-easy-1")
    honest = score_task(task, read_state(hab_states / "emr-easy-1.solved.state.json"))
    forged = score_task(task, read_state(hab_states / "emr-easy-1.tampered.state.json"))
    jm = [c.outcome for c in honest.checks if c.type == "jmespath"]
    assert jm == [c.outcome for c in forged.checks if c.type == "jmespath"] == ["pass", "pass"]


MINI_STATES = FIXTURES / "hab-mini-states"
MINI_NAMES = [
    p.name.removesuffix(".expected.json") for p in sorted(MINI_STATES.glob("*.expected.json"))
]


def test_the_repositorys_own_state_set_is_present() -> None:
    assert len(MINI_NAMES) == 5


@pytest.mark.parametrize("name", MINI_NAMES)
def test_verdicts_and_rendered_answers_on_the_repositorys_own_states(name: str) -> None:
    """The same path as the parity tests above, on states and verdicts written here by hand."""
    corpus = load_corpus(FIXTURES / "hab-mini")
    expected = json.loads((MINI_STATES / f"{name}.expected.json").read_text())
    task = corpus.task(expected["task_id"])
    state = read_state(MINI_STATES / f"{name}.state.json")
    record = score_task(task, state)
    assert [v.outcome for v in record.checks] == expected["checks"]
    judged = [c for c in task.grading.checks if isinstance(c, JudgeCheck)]
    assert len(judged) == len(expected["rubric"])
    for check, theirs in zip(judged, expected["rubric"], strict=True):
        rendered = render_rubric(check, state)
        assert (rendered.answer, rendered.context) == (theirs["answer"], theirs["context"])
    assert record.status == "failed"  # an ungraded or failed check: never a pass

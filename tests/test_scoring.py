"""Task scoring rules: denominator from checks, full credit only, fail-closed accounting."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import jmespath_check, judge_check, task_doc
from endstate import firewall
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import Task
from endstate.scoring.offline import score_supplied
from endstate.scoring.task_score import score_task


@pytest.fixture
def one_task(make_corpus: Callable[..., Path]) -> Callable[..., Task]:
    def make(evals: list[dict[str, object]], **extra: object) -> Task:
        root = make_corpus(
            {"prior_auth/t-easy-1.json": task_doc("t-easy-1", evals, **extra)}, "one"
        )
        return load_corpus(root).tasks[0]

    return make


def test_score_is_earned_over_check_weight(one_task: Callable[..., Task]) -> None:
    task = one_task([jmespath_check("a", points=3), jmespath_check("b", points=1)], points=10)
    record = score_task(task, {"a": True, "b": False})
    assert (record.earned, record.weight, record.score) == (3, 4, 0.75)
    assert record.status == "failed"
    assert [c.outcome for c in record.checks] == ["pass", "fail"]


def test_full_credit_passes(one_task: Callable[..., Task]) -> None:
    task = one_task([jmespath_check("a"), jmespath_check("submitted", False)])
    record = score_task(task, {"a": "TRUE", "submitted": False})
    assert record.status == "passed" and record.score == 1.0 and record.passed


def test_negative_check_fails_when_the_forbidden_thing_happened(
    one_task: Callable[..., Task],
) -> None:
    task = one_task([jmespath_check("noted"), jmespath_check("length(submissions)", 0)])
    assert score_task(task, {"noted": True, "submissions": []}).passed
    acted = score_task(task, {"noted": True, "submissions": [{"id": 1}]})
    assert not acted.passed and acted.score == 0.5


def test_no_judge_leaves_rubric_points_ungraded_and_the_task_cannot_pass(
    one_task: Callable[..., Task],
) -> None:
    task = one_task([jmespath_check("a"), judge_check("{{ note }}", points=2)])
    record = score_task(task, {"a": True, "note": "No auth needed (Medicare Advantage)."})
    assert record.status == "failed"
    assert record.flagged
    assert record.ungraded_points == 2
    assert record.weight == 3 and record.earned == 1
    judged = record.checks[1]
    assert judged.outcome == "ungraded"
    assert judged.answer == "No auth needed (Medicare Advantage)."
    assert judged.detail == "no judge configured"


def test_missing_and_unreadable_states_are_unmeasurable_not_dropped(
    make_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_corpus(
        {
            "prior_auth/a-easy-1.json": task_doc("a-easy-1", [jmespath_check("done")]),
            "prior_auth/a-easy-10.json": task_doc("a-easy-10", [jmespath_check("done")]),
            "dme/b-hard-2.json": task_doc("b-hard-2", [jmespath_check("done")], difficulty="hard"),
        }
    )
    states = tmp_path / "states"
    states.mkdir()
    (states / "a-easy-1.json").write_text(json.dumps({"done": True}))
    (states / "a-easy-1.2.json").write_text(json.dumps({"done": False}))
    (states / "a-easy-10.json").write_text("{not json")
    (states / "stray-task.json").write_text("{}")
    result = score_supplied(load_corpus(root), states)
    by_key = {(r.task_id, r.attempt): r for r in result.records}
    assert set(by_key) == {
        ("a-easy-1", "1"),
        ("a-easy-1", "2"),
        ("a-easy-10", "1"),
        ("b-hard-2", "1"),
    }
    assert by_key["a-easy-1", "1"].status == "passed"
    assert by_key["a-easy-1", "2"].status == "failed"
    bad = by_key["a-easy-10", "1"]
    assert bad.status == "unmeasurable" and bad.score == 0 and "a-easy-10.json" in (bad.error or "")
    assert "not valid JSON" in (bad.error or "")
    assert by_key["b-hard-2", "1"].status == "unmeasurable"
    assert by_key["b-hard-2", "1"].error == "no state document supplied"
    assert [p.name for p in result.unknown_files] == ["stray-task.json"]

    only = score_supplied(load_corpus(root), states, only_supplied=True)
    assert {r.task_id for r in only.records} == {"a-easy-1", "a-easy-10"}


def test_state_that_is_not_an_object_is_unmeasurable(
    make_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_corpus({"prior_auth/a.json": task_doc("a", [jmespath_check("done")])})
    states = tmp_path / "s"
    states.mkdir()
    (states / "a.json").write_text("[1, 2]")
    (record,) = score_supplied(load_corpus(root), states).records
    assert record.status == "unmeasurable"
    assert record.error and record.error.endswith("state document is not a JSON object")


def test_subdirectory_attempt_layout(make_corpus: Callable[..., Path], tmp_path: Path) -> None:
    root = make_corpus({"prior_auth/a.json": task_doc("a", [jmespath_check("done")])})
    states = tmp_path / "s"
    (states / "a").mkdir(parents=True)
    for i, done in enumerate([True, False, True], start=1):
        (states / "a" / f"{i}.json").write_text(json.dumps({"done": done}))
    records = score_supplied(load_corpus(root), states).records
    assert [(r.attempt, r.passed) for r in records] == [("1", True), ("2", False), ("3", True)]


def test_blocked_task_is_scored_zero_and_never_scored_from_state(
    make_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_corpus({"prior_auth/a.json": task_doc("a", [jmespath_check("done")])})
    states = tmp_path / "s"
    states.mkdir()
    (states / "a.json").write_text(json.dumps({"done": True}))

    def leaky(task: Task, binding: firewall.EpisodeBinding) -> firewall.Projection:
        shown = firewall.project(task, binding)
        return shown.model_copy(update={"instruction": shown.instruction + task.tier})

    result = score_supplied(load_corpus(root), states, project_fn=leaky)
    (record,) = result.records
    assert [v.task_id for v in result.blocked] == ["a"]
    assert record.status == "blocked" and record.score == 0 and record.checks == []
    assert "grading fields" in (record.error or "")

"""Errand legs as task checks: parsed from the native format, scored from the final answer and
the delta, kept out of the projection."""

from __future__ import annotations

import json
from typing import Any

import pytest

from endstate import firewall
from endstate.corpus.model import Task
from endstate.corpus.native import parse_task
from endstate.scoring.task_score import score_task

GOLD_DATE = "2025-11-30"
GOLD_DRUG = "Metformin 500 MG Oral Tablet"


def _errand(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": "endstate-native-v1",
        "id": "pe-1-001",
        "instruction": "My A1c came back. What was it, and when? Then message my doctor.",
        "family": "patient_errands",
        "scenario_label": "Result came back",
        "start": {"system": "patient_portal", "path": "/home"},
        "tier": "medium",
        "answer_fields": [
            {"name": "a1c", "description": "the latest A1c (a number)"},
            {"name": "taken", "description": "when (MM/DD/YYYY)"},
            {"name": "drugs", "description": "current medicines (a list)"},
        ],
        "checks": [
            {
                "type": "answer",
                "leg": "value",
                "field": "a1c",
                "kind": "number",
                "expected": 7.2,
                "tolerance": 0.05,
            },
            {
                "type": "answer",
                "leg": "date",
                "field": "taken",
                "kind": "date",
                "expected": GOLD_DATE,
            },
            {
                "type": "answer",
                "leg": "drugs",
                "field": "drugs",
                "kind": "set",
                "expected": [GOLD_DRUG, "Lisinopril 10 MG Oral Tablet"],
            },
            {
                "type": "delta",
                "leg": "message",
                "expect": [
                    {
                        "table": "pp_sent_messages",
                        "op": "added",
                        "match": {"provider_id": "PRV-0004"},
                    },
                    {"table": "pp_sent_messages", "op": "added", "count": 1},
                ],
            },
        ],
        "template_id": "errand.result-came-back",
        "world": {"id": "w", "sha256": "0" * 64, "seed": 1, "clock": "2026-03-02T09:00:00"},
    }
    data.update(changes)
    return data


def _task(**changes: Any) -> Task:
    task, problems = parse_task("pe.json", "patient_errands", _errand(**changes))
    assert task is not None, problems
    return task


SENT = {
    "delta": {
        "pp_sent_messages": {
            "added": [{"id": "M1", "provider_id": "PRV-0004"}],
            "updated": [],
            "removed": [],
        }
    }
}
UNTOUCHED: dict[str, Any] = {"delta": {}}
RIGHT = {
    "a1c": "7.2 %",
    "taken": "11/30/2025",
    "drugs": ["lisinopril 10 mg oral tablet", GOLD_DRUG],
}


@pytest.mark.parametrize(
    ("state", "message", "score", "failed"),
    [
        (SENT, json.dumps(RIGHT), 1.0, []),
        (UNTOUCHED, json.dumps(RIGHT), 0.75, ["message"]),
        (SENT, "Done! " + json.dumps({**RIGHT, "a1c": 7.3}), 0.75, ["value"]),
        (SENT, json.dumps({**RIGHT, "drugs": [GOLD_DRUG]}), 0.75, ["drugs"]),  # F1 0.67
        (SENT, json.dumps({k: v for k, v in RIGHT.items() if k != "taken"}), 0.75, ["date"]),
        (SENT, "a1c: 7.2\ntaken: 11/30/2025", 0.25, ["value", "date", "drugs"]),
        (SENT, None, 0.25, ["value", "date", "drugs"]),
    ],
    ids=["all", "no-write", "wrong-number", "partial-set", "missing-field", "yaml", "silent"],
)
def test_an_errand_scores_legs_correct_over_legs(
    state: dict[str, Any], message: str | None, score: float, failed: list[str]
) -> None:
    record = score_task(_task(), state, final_message=message)
    assert record.score == pytest.approx(score)
    assert record.passed is (score == 1.0)
    assert [v.leg for v in record.checks if v.outcome != "pass"] == failed
    kinds = {v.leg: v.leg_kind for v in record.checks}
    assert kinds == {"value": "read", "date": "read", "drugs": "read", "message": "write"}
    assert all(v.detail for v in record.checks)  # every verdict says why


def test_a_near_miss_keeps_its_measure_and_earns_nothing() -> None:
    answer = json.dumps({**RIGHT, "drugs": [GOLD_DRUG]})
    drugs = next(
        v for v in score_task(_task(), SENT, final_message=answer).checks if v.leg == "drugs"
    )
    assert drugs.earned == 0.0 and drugs.leg_score == pytest.approx(2 / 3)
    assert drugs.answer == json.dumps([GOLD_DRUG])


def test_why_no_answer_could_be_read_is_recorded() -> None:
    record = score_task(_task(), SENT, final_message="a1c: 7.2")
    value = next(v for v in record.checks if v.leg == "value")
    assert "YAML" in value.detail and "a1c" in value.detail


def test_a_claim_of_success_scores_nothing_the_delta_does_not_show() -> None:
    record = score_task(_task(), UNTOUCHED, final_message=json.dumps(RIGHT) + " I sent it.")
    message = next(v for v in record.checks if v.leg == "message")
    assert message.outcome == "fail" and "pp_sent_messages" in message.detail


def test_the_projection_carries_the_answer_contract_and_no_gold() -> None:
    task = _task()
    projection = firewall.project(task)
    assert [f.name for f in projection.answer_fields or ()] == ["a1c", "taken", "drugs"]
    raw = projection.canonical_bytes().decode()
    for gold in ("7.2", GOLD_DATE, GOLD_DRUG, "PRV-0004", "pp_sent_messages"):
        assert gold not in raw
    assert firewall.verify(task).status == "verified"


def test_a_projection_that_reads_a_gold_is_blocked() -> None:
    def leaky(task: Task, binding: firewall.EpisodeBinding) -> firewall.Projection:
        golds = [c.expected for c in task.grading.checks if getattr(c, "type", "") == "answer"]
        return firewall.project(task, binding).model_copy(
            update={"instruction": task.public.instruction + json.dumps(golds[:1])}
        )

    verdict = firewall.verify(_task(), leaky)
    assert verdict.status == "blocked"


def test_tasks_without_an_answer_contract_project_as_before() -> None:
    data = _errand(
        answer_fields=[],
        checks=[
            {
                "type": "delta",
                "leg": "message",
                "expect": [{"table": "pp_sent_messages", "op": "added"}],
            },
        ],
    )
    task, _ = parse_task("pe.json", "patient_errands", data)
    assert task is not None
    assert firewall.project(task).answer_fields is None


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        (
            {"answer_fields": [{"name": "a1c"}, {"name": "drugs"}]},
            "$.checks[1].field",
            "not in answer_fields",
        ),
        (
            {
                "answer_fields": [
                    {"name": "a1c"},
                    {"name": "taken"},
                    {"name": "drugs"},
                    {"name": "x"},
                ]
            },
            "$.answer_fields[3]",
            "graded by no leg",
        ),
        (
            {
                "checks": [
                    {"type": "answer", "leg": "v", "field": "a1c", "kind": "set", "expected": "7.2"}
                ]
            },
            "$.checks[0]",
            "must be a list",
        ),
        (
            {
                "checks": [
                    {
                        "type": "answer",
                        "leg": "v",
                        "field": "a1c",
                        "kind": "number",
                        "expected": None,
                    }
                ]
            },
            "$.checks[0]",
            "expected is null",
        ),
        (
            {
                "checks": [
                    {"type": "answer", "leg": "v", "field": "a1c", "kind": "number", "expected": 1},
                    {
                        "type": "answer",
                        "leg": "v",
                        "field": "taken",
                        "kind": "date",
                        "expected": GOLD_DATE,
                    },
                ]
            },
            "$.checks[1].leg",
            "named twice",
        ),
        (
            {"checks": [{"type": "delta", "leg": "m", "expect": []}]},
            "$.checks[0]",
            "at least one expectation",
        ),
        (
            {
                "checks": [
                    {
                        "type": "delta",
                        "leg": "m",
                        "expect": [{"table": "t", "op": "unchanged", "count": 1}],
                    }
                ]
            },
            "$.checks[0].expect[0]",
            "count does not apply",
        ),
        ({"answer_fields": [{"name": "not a name"}]}, "$.answer_fields[0].name", "pattern"),
    ],
    ids=[
        "unasked",
        "ungraded",
        "set-gold",
        "null-gold",
        "dup-leg",
        "empty-write",
        "bad-count",
        "bad-name",
    ],
)
def test_bad_errands_name_the_place_and_the_reason(
    change: dict[str, Any], path: str, reason: str
) -> None:
    _, problems = parse_task("pe.json", "patient_errands", _errand(**change))
    found = [(p.path, p.reason) for p in problems]
    assert any(p.startswith(path) and reason in r for p, r in found), found

"""A verdict built from the scorers' typed values equals the one validation would give."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from endstate.corpus.loader import load_corpus
from endstate.records import CheckVerdict, TaskRecord, built_verdict
from endstate.scoring.states import read_state
from endstate.scoring.task_score import score_task

HEAD: dict[str, Any] = {
    "index": 3,
    "type": "llm_judge",
    "description": "Was the note filed?",
    "category": "documentation",
    "subtask_category": None,
    "points": 2.0,
}

SHAPES: list[dict[str, Any]] = [
    {"earned": 2.0, "outcome": "pass", "detail": "Match: 'x' == 'x'"},
    {"earned": 0.0, "outcome": "fail", "detail": "error: lone \udc80 surrogate"},
    {"earned": 0.0, "outcome": "ungraded", "detail": "no judge", "answer": "text \ud800 here"},
    {
        "earned": 2.0,
        "outcome": "pass",
        "detail": "judge majority 3/3",
        "answer": "Filed",
        "votes": [1, 1, 1],
        "cached": True,
        "rubric_input": {"description": "d", "context": "c \udfff", "rubric": "r"},
        "rejudge_votes": [1, 0, 1],
    },
    {
        "earned": 0.0,
        "outcome": "fail",
        "detail": "F1 0.5",
        "answer": "['a']",
        "leg": "notes",
        "leg_kind": "write",
        "leg_score": 0.5,
    },
]


@pytest.mark.parametrize("shape", SHAPES)
def test_built_verdict_is_the_validated_verdict(shape: dict[str, Any]) -> None:
    validated = CheckVerdict(**HEAD, **shape)
    built = built_verdict(HEAD["index"], _Check(), **shape)
    assert built == validated
    assert built.model_dump() == validated.model_dump()
    assert built.model_dump_json() == validated.model_dump_json()  # field order kept
    record = TaskRecord(
        task_id="t", attempt="1", family="f", tier="easy", status="failed", score=0.0,
        earned=0.0, weight=2.0, checks=[built],
    )  # fmt: skip
    assert TaskRecord.model_validate_json(record.model_dump_json()).checks == [validated]


def test_built_verdicts_do_not_share_state() -> None:
    first = built_verdict(0, _Check(), earned=0.0, outcome="fail")
    second = built_verdict(0, _Check(), earned=0.0, outcome="fail")
    first.detail = "changed"
    assert second.detail == "" and "detail" in first.model_fields_set


class _Check:
    """A check's fields as every check model carries them."""

    type = HEAD["type"]
    description = HEAD["description"]
    category = HEAD["category"]
    subtask_category = HEAD["subtask_category"]
    points = HEAD["points"]


def test_scored_records_are_the_validated_records() -> None:
    """Every task of the mini corpus on its recorded states: the record scoring builds equals
    the one validation gives, field for field and byte for byte in JSON."""
    root = Path(__file__).resolve().parents[1] / "fixtures"
    corpus = load_corpus(root / "hab-mini")
    scored = 0
    for path in sorted((root / "hab-mini-states").glob("*.state.json")):
        task = corpus.task(path.name.split(".")[0])
        record = score_task(task, read_state(path), attempt="2 \udc80", state_source=str(path))
        again = TaskRecord.model_validate(record.model_dump())
        assert record == again and record.model_dump_json() == again.model_dump_json()
        assert isinstance(record.ungraded_points, float) and "\\udc80" in record.attempt
        scored += 1
    assert scored == 5

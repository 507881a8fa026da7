"""An errand run end to end: the llm agent (against a local double of the chat API) signs in to
the patient portal, makes the write through its pages and answers in JSON; the runner scores
the answer's named fields and the delta, never the claim."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from endstate.agents.registry import make_agent
from endstate.builtin.errands import ERRANDS_SEED
from endstate.builtin.errands.generator import generate_errands
from endstate.builtin.generator import Generated, write_corpus
from endstate.runs.session import RunOptions, RunResult, execute
from openai_double import Behaviour, ChatDouble

ARCHETYPE = "errand.result-came-back"


def _errand() -> dict[str, Any]:
    """A result-came-back errand asking for the value and its date (the built-in set has one)."""
    return next(
        g.data
        for g in generate_errands(ERRANDS_SEED, 63)
        if g.data["template_id"] == ARCHETYPE
        and {"result_value", "result_date"} <= {c.get("field") for c in g.data["checks"]}
    )


def _corpus(tmp_path: Path, data: dict[str, Any]) -> Path:
    root = tmp_path / "errands"
    task = Generated(f"patient_errands/{data['id']}.json", data)
    write_corpus([task], root, name="one-errand", source="test", stamp="2026-03-02")
    return root


def _as_actions(steps: list[dict[str, Any]], answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The reference as a model would act it: no captures, relative URLs, its own answer."""
    actions = []
    for step in steps:
        if step["type"] == "capture":
            continue
        if step["type"] == "goto":
            step = {**step, "url": step["url"].replace("${pp}", "")}
        if step["type"] == "done":
            step = {"type": "done", "message": "Here you go: " + json.dumps(answer)}
        actions.append(step)
    return actions


def _run(tmp_path: Path, data: dict[str, Any], answer: dict[str, Any]) -> RunResult:
    chat = ChatDouble().start()
    try:
        steps = data["reference"]["steps"]
        chat.queue(*(Behaviour(reply=json.dumps(a)) for a in _as_actions(steps, answer)))
        spec = "llm:scripted-model"
        agent = make_agent(spec, dict(base_url=chat.base_url))
        opts = RunOptions(
            corpus=_corpus(tmp_path, data), agent=agent, agent_spec=spec, out=tmp_path / "runs"
        )
        result = asyncio.run(execute(opts))
        first = json.dumps(chat.requests[0]["messages"])
    finally:
        chat.stop()
    for field in data["answer_fields"]:
        assert field["name"] in first  # the answer contract reached the model
    for check in data["checks"]:
        if check["type"] == "answer" and isinstance(check["expected"], float):
            assert str(check["expected"]) not in first  # no gold did
    return result


def _golds(data: dict[str, Any]) -> dict[str, Any]:
    return {c["field"]: c["expected"] for c in data["checks"] if c["type"] == "answer"}


def test_an_errand_done_right_scores_every_leg(tmp_path: Path) -> None:
    data = _errand()
    result = _run(tmp_path, data, _golds(data))
    (record,) = result.records
    assert record.status == "passed" and record.score == 1.0, [c.detail for c in record.checks]
    assert [c.leg_kind for c in record.checks][-1] == "write"
    assert "By leg kind" in result.report


@pytest.mark.parametrize("wrong", ["result_value", "result_date"])
def test_one_wrong_answer_costs_one_leg_and_says_why(tmp_path: Path, wrong: str) -> None:
    data = _errand()
    golds = _golds(data)
    answer = {**golds, wrong: "01/01/1999" if wrong == "result_date" else 0.5}
    result = _run(tmp_path, data, answer)
    (record,) = result.records
    legs = len(data["checks"])
    assert record.status == "failed" and record.score == pytest.approx((legs - 1) / legs)
    (failed,) = [c for c in record.checks if c.outcome == "fail"]
    assert failed.leg == wrong and "expected" in failed.detail
    assert record.facts is not None and record.facts.claim == "done"

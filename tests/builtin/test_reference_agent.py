"""The reference agent: each built-in task's own trajectory, played as a run (the ceiling).

With no judge configured, every built-in task it plays passes — the corpus is graded by rules
alone — while the null agent passes none; and its runs are validation, never scores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from endstate.agents.registry import agent_kinds, make_agent
from endstate.builtin import builtin_corpus_path
from endstate.builtin.reference_agent import ReferenceAgent
from endstate.corpus.loader import load_corpus
from endstate.errors import EndstateError
from endstate.runs.session import RunOptions, execute

TASKS = "*-g8-00[1-3]"  # a slice of every family: nine tasks


def test_the_kind_is_registered_and_refuses_a_missing_corpus(tmp_path: Path) -> None:
    assert "reference" in agent_kinds()
    agent = make_agent("reference:builtin")
    assert isinstance(agent, ReferenceAgent) and agent.scored is False
    assert agent.config()["tasks"] == len(load_corpus(builtin_corpus_path()).tasks)
    with pytest.raises(EndstateError, match="no corpus there"):
        make_agent(f"reference:{tmp_path / 'nothing'}")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EndstateError):
        make_agent(f"reference:{empty}")


def _run(agent_spec: str, out: Path) -> dict[str, str]:
    import asyncio

    agent = make_agent(agent_spec)
    run = asyncio.run(
        execute(
            RunOptions(
                corpus=builtin_corpus_path(),
                agent=agent,
                agent_spec=agent_spec,
                out=out,
                workers=2,
                time_limit=120,
                tasks=TASKS,
            )
        )
    )
    records = run.store.read_records()
    return {r.task_id: r.status for r in records}


def test_without_a_judge_the_reference_passes_every_task_and_null_none(tmp_path: Path) -> None:
    reference = _run("reference:builtin", tmp_path / "ref")
    assert len(reference) == 9
    assert set(reference.values()) == {"passed"}, reference
    floor = _run("null", tmp_path / "null")
    assert "passed" not in floor.values(), floor
    manifest = json.loads(next((tmp_path / "ref").glob("*/manifest.json")).read_text())
    assert manifest["agent"]["scored"] is False
    report = next((tmp_path / "ref").glob("*/report.txt")).read_text()
    assert "VALIDATION run (reference agent, which knows each answer in advance)" in report

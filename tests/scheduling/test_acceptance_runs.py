"""The issue's acceptance criteria end to end through `endstate run` with a command agent on
the real HTTP endpoint: a wrong tool call is labelled adapter_contract, and a run with five
questions to the user reports a clarification burden of five."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from endstate.agents.registry import make_agent
from endstate.envs.systems.scheduling.outcomes import SchedulingSummary
from endstate.runs.session import RunOptions, RunResult, execute

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "fixtures" / "scheduling" / "cases"
AGENT = Path(__file__).with_name("asking_agent.py")


def run(flags: str, out: Path) -> RunResult:
    # The sandbox mounts the agent's own folder, never one inside the checkout's tests.
    own = out.parent / "agent"
    own.mkdir()
    script = Path(shutil.copy(AGENT, own / AGENT.name))
    spec = f"command:{sys.executable} {script} {flags}"
    opts = RunOptions(
        corpus=CASES, agent=make_agent(spec, None), agent_spec=spec, out=out, time_limit=60
    )
    return asyncio.run(execute(opts))


def end_state(result: RunResult) -> dict[str, Any]:
    (record,) = result.records
    path = result.store.root / "traces" / record.task_id / "1" / "end_state.json"
    found: dict[str, Any] = json.loads(path.read_text())["scheduling"]
    return found


def test_a_wrong_tool_call_is_labelled_adapter_contract(tmp_path: Path) -> None:
    result = run("--wrong-tool --questions 1", tmp_path / "runs")
    state = end_state(result)
    first = state["requests"][0]
    assert (first["tool"], first["actor"], first["code"]) == (
        "book_appointment",
        "agent",
        "unknown_tool",
    )
    assert state["summary"]["trace_boundary"] == "adapter_contract"
    sched = result.summary.sections.get("scheduling")
    assert isinstance(sched, SchedulingSummary) and sched.boundaries.get("adapter_contract") == 1


def test_five_questions_to_the_user_report_a_clarification_burden_of_five(
    tmp_path: Path,
) -> None:
    result = run("--questions 5", tmp_path / "runs")
    assert end_state(result)["summary"]["clarifications"] == 5
    sched = result.summary.sections.get("scheduling")
    assert isinstance(sched, SchedulingSummary) and sched.clarification_turns == 5
    assert "5 question(s) put to the user" in result.report

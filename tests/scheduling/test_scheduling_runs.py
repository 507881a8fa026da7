"""Scheduling cases end to end through `endstate run`: the null agent, the reference run
replayed as tools, and scripted command agents that reconcile or retry blindly after an
unknown outcome (issue 14's done-when)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from endstate.agents.registry import make_agent
from endstate.boundary import boundary_weakenings
from endstate.cli import app
from endstate.envs.systems.scheduling.outcomes import SchedulingSummary
from endstate.regress.gates import evaluate, parse
from endstate.runs.session import RunOptions, RunResult, execute

from .conftest import GATES

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "fixtures" / "scheduling" / "cases"
DESK_AGENT = ROOT / "examples" / "scheduling_desk_agent.py"


def run(spec: str, out: Path, **kw: object) -> RunResult:
    agent = make_agent(spec, None)
    opts = RunOptions(corpus=CASES, agent=agent, agent_spec=spec, out=out, **kw)  # type: ignore[arg-type]
    return asyncio.run(execute(opts))


def failing(result: RunResult) -> list[str]:
    (record,) = result.records
    return sorted(str(c.category) for c in record.checks if c.outcome != "pass")


def test_the_null_agent_meets_no_expectation_and_breaks_no_rule(tmp_path: Path) -> None:
    result = run("null", tmp_path / "runs")
    (record,) = result.records
    assert record.status == "failed"
    assert failing(result) == ["expected", "expected", "expected"]


def test_the_reference_run_replayed_as_tools_meets_the_oracle(tmp_path: Path) -> None:
    refs = tmp_path / "refs"
    cli = CliRunner().invoke(app, ["corpus", "reference-runs", str(CASES), "--out", str(refs)])
    assert cli.exit_code == 0, cli.output
    result = run(f"tools-replay:{refs}", tmp_path / "runs")
    (record,) = result.records
    assert record.status == "passed" and record.score == 1.0
    assert result.manifest.mode == "validation"


@pytest.mark.parametrize(
    ("flags", "status", "fails"),
    [("", "passed", []), (" --blind-retry", "failed", ["forbidden:duplicate_booking"])],
    ids=["reconciles", "retries-blindly"],
)
def test_after_an_unknown_outcome_a_blind_retry_is_caught_as_a_duplicate_write(
    tmp_path: Path, flags: str, status: str, fails: list[str]
) -> None:
    result = run(f"command:{sys.executable} {DESK_AGENT}{flags}", tmp_path / "runs", time_limit=60)
    (record,) = result.records
    assert record.status == status, record
    assert failing(result) == fails
    # Both claimed a booking; only the state says which of them made two.
    assert record.facts is not None and "Booked" in (record.facts.final_message or "")
    end_state = result.store.root / "traces" / record.task_id / "1" / "end_state.json"
    state = json.loads(end_state.read_text())["scheduling"]
    assert state["summary"]["unknown_outcomes"] == 1
    assert state["summary"]["duplicate_external_bookings"] == (1 if flags else 0)
    # The report counts it from the state, and says where the blind one went wrong.
    sched = result.summary.sections["scheduling"]
    assert isinstance(sched, SchedulingSummary) and sched.faulted == 1
    assert (sched.duplicate_writes, sched.recovered, sched.false_success) == (
        (1, 0, 1) if flags else (0, 1, 0)
    )
    assert sched.boundaries["external_uncertainty"] == (1 if flags else 0)
    assert "Scheduling outcomes" in result.report and "First broken boundary" in result.report
    # The family's release gates hold for the reconciling agent and stop the blind one.
    verdicts = {
        v.gate: v.passed
        for v in evaluate(
            parse(GATES, "gates.yaml"),
            result.records,
            lambda _: (True, ""),
            boundary_weakenings(result.manifest, result.records),
        )
    }
    assert verdicts == {
        "count of unauthorized_write ≤ 0": True,
        "count of duplicate_booking ≤ 0": not flags,
        "count of untraceable_result ≤ 0": True,
        "count of unhandled_unknown_outcome ≤ 0": not flags,
    }


def test_validate_checks_cases_by_replaying_their_runs() -> None:
    cli = CliRunner().invoke(app, ["corpus", "validate", str(CASES)])
    assert cli.exit_code == 0, cli.output
    assert "forbidden effects caught 4/4" in cli.output

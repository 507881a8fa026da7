"""Baselines, task-by-task comparison and gates, on real runs of the embedded suite."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

from endstate.agents.registry import make_agent
from endstate.cli.regress import sheet_of_run
from endstate.regress.compare import compare
from endstate.regress.sheet import (
    AttemptResult,
    CheckResult,
    ScoreSheet,
    TaskSheet,
)
from endstate.runs.session import RunOptions, execute
from endstate.scoring.judge import Judge, JudgeConfig
from openai_double import Behaviour, ChatDouble

from .conftest import clear_task, referral_id
from .test_run_faults import ENDSTATE

PASS = Behaviour(reply='{"grade": 1, "reason": "explains it"}')
FAIL = Behaviour(reply='{"grade": 0, "reason": "does not"}')


def _corpus(root: Path, tasks: dict[str, dict[str, Any]]) -> Path:
    for task_id, doc in tasks.items():
        path = root / "prior_auth" / f"{task_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2))
    return root


def _leave_it(task_id: str, ref: str) -> dict[str, Any]:
    """A task the idle agent passes: the referral must stay on the worklist."""
    doc = clear_task(task_id, ref)
    doc["evals"] = [
        {
            "type": "jmespath",
            "query": f"contains(ehr.cleared_referrals, '{ref}')",
            "expected_value": False,
            "points": 1,
            "description": "left on the worklist",
        }
    ]
    return doc


def _run(corpus: Path, spec: str, out: Path, judge: Judge | None = None) -> Path:
    agent = make_agent(spec)
    result = asyncio.run(
        execute(RunOptions(corpus=corpus, agent=agent, agent_spec=spec, out=out, judge=judge))
    )
    return result.store.root


def _cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ENDSTATE), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )


def test_one_regression_is_not_an_improvement_whatever_the_aggregate_did(
    tmp_path: Path, reference_trajectory: Path
) -> None:
    ref = referral_id()
    corpus = _corpus(
        tmp_path / "corpus",
        {
            "pa-easy-1": clear_task("pa-easy-1", ref),
            "pa-easy-2": _leave_it("pa-easy-2", ref),
            "pa-easy-3": _leave_it("pa-easy-3", ref),
        },
    )
    # The baseline solves task 1 (and so fails 2 and 3): 1/3. The new agent idles: 2/3.
    base_run = _run(corpus, f"replay:{reference_trajectory}", tmp_path / "runs")
    new_run = _run(corpus, "null", tmp_path / "runs")
    frozen = _cli("baseline", "freeze", base_run, "--name", "release-1", cwd=tmp_path)
    assert frozen.returncode == 0, frozen.stderr
    path = tmp_path / ".endstate" / "baselines" / "release-1.json"
    assert not path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)

    proc = _cli(
        "compare", new_run, "--baseline", "release-1", "--html", tmp_path / "c.html", cwd=tmp_path
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("Verdict: NOT AN IMPROVEMENT — 1 task(s) regressed (pa-easy-1)")
    assert "pa-easy-1 (prior_auth/easy) — lost pass: pass rate 100% → 0%" in proc.stdout
    assert "passes 1 → 2 (lost 1, gained 2" in proc.stdout  # the aggregate rose
    html = (tmp_path / "c.html").read_text()
    assert "NOT AN IMPROVEMENT" in html and "class='regressed'" in html

    again = _cli("baseline", "freeze", new_run, "--name", "release-1", cwd=tmp_path)
    assert again.returncode == 1 and "never replaced" in again.stderr


def test_an_edited_baseline_is_refused(tmp_path: Path, reference_trajectory: Path) -> None:
    ref = referral_id()
    corpus = _corpus(tmp_path / "corpus", {"pa-easy-1": clear_task("pa-easy-1", ref)})
    run_dir = _run(corpus, "null", tmp_path / "runs")
    assert _cli("baseline", "freeze", run_dir, "--name", "b1", cwd=tmp_path).returncode == 0
    path = tmp_path / ".endstate" / "baselines" / "b1.json"
    path.chmod(0o644)
    path.write_text(path.read_text().replace('"status":"failed"', '"status":"passed"', 1)
                    .replace('"status": "failed"', '"status": "passed"', 1))  # fmt: skip
    proc = _cli("compare", run_dir, "--baseline", "b1", cwd=tmp_path)
    assert proc.returncode == 1
    assert "baseline was edited after it was frozen" in proc.stderr
    listed = _cli("baseline", "list", cwd=tmp_path)
    assert "REFUSED" in listed.stdout


def _rubric_runs(tmp_path: Path, chat: ChatDouble, trajectory: Path) -> tuple[Path, Path]:
    ref = referral_id()
    corpus = _corpus(tmp_path / "corpus", {"pa-easy-1": clear_task("pa-easy-1", ref, rubric=True)})

    def judge() -> Judge:  # no cache: each run asks afresh
        return Judge(JudgeConfig(model="grader-1", base_url=chat.base_url, k=1, max_retries=0))

    chat.queue(PASS)
    base = _run(corpus, f"replay:{trajectory}", tmp_path / "runs", judge())
    chat.queue(FAIL)
    new = _run(corpus, f"replay:{trajectory}", tmp_path / "runs", judge())
    return base, new


def test_a_rubric_flip_that_does_not_hold_is_a_judge_flip(
    tmp_path: Path, chat: ChatDouble, reference_trajectory: Path
) -> None:
    base, new = _rubric_runs(tmp_path, chat, reference_trajectory)
    chat.queue(PASS)  # judged again, the verdict reverts
    proc = _cli("compare", new, "--against", base, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Verdict: NO CHANGE" in proc.stdout
    assert "Judge flips (1)" in proc.stdout
    assert "the new verdict did not hold on re-judging" in proc.stdout


def test_a_rubric_regression_that_holds_on_re_judging_is_a_regression(
    tmp_path: Path, chat: ChatDouble, reference_trajectory: Path
) -> None:
    base, new = _rubric_runs(tmp_path, chat, reference_trajectory)
    chat.queue(FAIL)  # judged again, the new verdict stands
    proc = _cli("compare", new, "--against", base, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Regressions (1)" in proc.stdout
    assert "the regression held on re-judging" in proc.stdout


def test_a_lost_attempt_without_evidence_is_a_regression(
    tmp_path: Path, reference_trajectory: Path
) -> None:
    ref = referral_id()
    corpus = _corpus(tmp_path / "corpus", {"pa-easy-1": clear_task("pa-easy-1", ref)})
    base = _run(corpus, f"replay:{reference_trajectory}", tmp_path / "runs")
    new = _run(corpus, f"replay:{reference_trajectory}", tmp_path / "runs")
    (new / "records.jsonl").write_text("")  # as a run killed before its record was written
    result = compare(sheet_of_run(base), sheet_of_run(new), "base")
    assert result.verdict == "not an improvement"
    (row,) = result.regressions
    assert row.kind == "lost score (unmeasurable, no infrastructure evidence)"


def _sheet(run_id: str, attempts: list[AttemptResult]) -> ScoreSheet:
    from endstate.build import BuildInfo
    from endstate.regress.sheet import SheetPins

    pins = SheetPins(
        run_id=run_id,
        corpus_name="c",
        corpus_tree_hash="h",
        build=BuildInfo(version="1"),
        environment_kind="embedded",
        environment_fingerprint="f",
        agent_spec="a",
        seed=0,
        attempts_per_task=len(attempts),
    )
    task = TaskSheet(task_id="t-1", family="f", tier="easy", weight=1, attempts=attempts)
    return ScoreSheet(pins=pins, source=f"/nowhere/{run_id}", tasks={"t-1": task})


def test_an_attempt_lost_with_infrastructure_evidence_is_attributed_not_charged() -> None:
    from endstate.records import InfrastructureFault

    passed = AttemptResult(attempt="1", status="passed", score=1, earned=1,
                           checks=[CheckResult(index=0, type="jmespath", outcome="pass", points=1, earned=1)])  # fmt: skip
    fault = InfrastructureFault(kind="readback", call="read_state", detail="connection reset")
    lost = AttemptResult(
        attempt="1", status="unmeasurable", score=0, earned=0, infrastructure=fault
    )
    result = compare(_sheet("b", [passed]), _sheet("r", [lost]), "base")
    assert result.verdict == "no change" and not result.regressions
    (row,) = result.where("infrastructure")
    assert row.infrastructure == [fault]
    unexplained = lost.model_copy(update={"infrastructure": None})
    charged = compare(_sheet("b", [passed]), _sheet("r", [unexplained]), "base")
    assert charged.verdict == "not an improvement"


def test_drift_is_refused_unless_allowed_and_then_disclosed() -> None:
    passed = AttemptResult(attempt="1", status="passed", score=1, earned=1)
    base, run = _sheet("b", [passed]), _sheet("r", [passed])
    run = run.model_copy(update={"pins": run.pins.model_copy(update={"corpus_tree_hash": "x"})})
    assert compare(base, run, "base").verdict == "not comparable"
    allowed = compare(base, run, "base", allow_drift=True)
    assert allowed.verdict == "no change" and allowed.drift_allowed
    assert allowed.drift == ["corpus tree hash: baseline 'h', run 'x'"]


def test_replicates_compare_pass_fractions_and_a_score_tolerance_is_explicit() -> None:
    def attempt(label: str, passed: bool, score: float) -> AttemptResult:
        status = "passed" if passed else "failed"
        return AttemptResult(attempt=label, status=status, score=score, earned=score)

    base = _sheet("b", [attempt(str(i), i < 4, 1.0 if i < 4 else 0.5) for i in range(5)])
    same_rate = _sheet("r", [attempt(str(i), i < 4, 1.0 if i < 4 else 0.4) for i in range(5)])
    strict = compare(base, same_rate, "base")
    assert [t.kind for t in strict.regressions] == ["score down"]
    lenient = compare(base, same_rate, "base", score_tolerance=0.05)
    assert lenient.verdict == "no change" and lenient.score_tolerance == 0.05
    fewer = _sheet("r", [attempt(str(i), i < 3, 1.0 if i < 3 else 0.5) for i in range(5)])
    assert [t.kind for t in compare(base, fewer, "base").regressions] == ["pass rate down"]
    assert strict.reliable == (0, 0)


GATES = """\
gates:
  - metric: pass_rate
    min: 0.5
  - metric: count
    outcome: unmeasurable
    max: 0
"""


def test_gates_are_pinned_before_the_run_judged_after_and_refused_if_edited(
    tmp_path: Path, reference_trajectory: Path
) -> None:
    ref = referral_id()
    corpus = _corpus(tmp_path / "corpus", {"pa-easy-1": clear_task("pa-easy-1", ref)})
    gates = tmp_path / "gates.yaml"
    gates.write_text(GATES)
    proc = _cli("run", "--corpus", corpus, "--agent", "null", "--gates", gates,
                "--out", tmp_path / "runs", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["gates"]["content"] == GATES
    assert "Gates: 1 of 2 passed — 1 FAILED" in (run_dir / "report.txt").read_text()
    judged = _cli("gate", run_dir, cwd=tmp_path)
    assert judged.returncode == 1
    assert "FAIL  pass_rate ≥ 0.5: 0/1" in judged.stdout
    assert "pass  count of unmeasurable ≤ 0: 0 of 1 attempts" in judged.stdout
    gates.write_text(GATES.replace("0.5", "0.0"))
    edited = _cli("gate", run_dir, cwd=tmp_path)
    assert edited.returncode == 1 and "gates changed after the run started" in edited.stderr


def test_a_bad_gates_file_is_refused_before_the_run_starts(tmp_path: Path) -> None:
    gates = tmp_path / "gates.yaml"
    gates.write_text("gates:\n  - metric: pass_rate\n")
    proc = _cli(
        "run", "--agent", "null", "--gates", gates, "--out", tmp_path / "runs", cwd=tmp_path
    )
    assert proc.returncode == 1
    assert "gates.0: Value error, pass_rate needs `min` or `max`" in proc.stderr
    assert not (tmp_path / "runs").exists()


def test_two_builds_are_named_as_a_change_and_never_called_the_same_agent() -> None:
    from endstate.agent_build import AgentBuild, ProgramTree

    def built(digest: str) -> AgentBuild:
        files = {"agent/agent.py": digest}
        tree = ProgramTree(roots=["/a"], ignored=[], sha256=digest * 4, files=files, bytes=1)
        return AgentBuild(program=tree)

    passed = AttemptResult(attempt="1", status="passed", score=1, earned=1)
    base, run = _sheet("b", [passed]), _sheet("r", [passed])
    base = base.model_copy(
        update={"pins": base.pins.model_copy(update={"agent_build": built("1111")})}
    )
    run = run.model_copy(
        update={"pins": run.pins.model_copy(update={"agent_build": built("2222")})}
    )
    plain = compare(base, run, "base")
    assert plain.verdict == "no change"
    assert "agent build: program file agent/agent.py changed (1111 -> 2222)" in plain.changed
    same = compare(base, run, "base", same_agent=True)
    assert same.verdict == "not comparable"
    assert same.drift == [
        "--same-agent: agent build: program file agent/agent.py changed (1111 -> 2222)"
    ]
    assert compare(base, base, "base", same_agent=True).verdict == "no change"

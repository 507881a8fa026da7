"""Runs on the benchmark's own portals (`--env hab`), through the real `endstate` command.

The null agent goes over the whole training split once per session; each attempt's end state
(kept in the run directory as the document scored) is then scored by the benchmark's own
JMESPath evaluator, check by check, and must get the same verdicts and points as endstate gave.
Skipped, saying why, without ../shared (the portals, the corpus and the benchmark's harness).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from endstate.hab.build import PortalBuild
from test_parity_differential import _reference

ENDSTATE = Path(sys.executable).with_name("endstate")


def hab_endstate(
    *args: str | Path, cache: Path, cwd: Path, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ENDSTATE_HAB_CACHE": str(cache), "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [str(ENDSTATE), *map(str, args)],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout,
    )  # fmt: skip


@dataclass(frozen=True)
class NullRun:
    root: Path
    stdout: str
    manifest: dict[str, Any]
    records: dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def null_run(
    portal_build: PortalBuild,
    hab_cache: Path,
    hab_train: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> NullRun:
    out = tmp_path_factory.mktemp("hab-null")
    # No --env: the tasks' website (the benchmark's portals) chooses it.
    proc = hab_endstate(
        "run", "--corpus", hab_train, "--agent", "null", "--out", out, cache=hab_cache, cwd=out
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (root,) = [p for p in out.iterdir() if p.is_dir()]
    records = {
        r["task_id"]: r for r in map(json.loads, (root / "records.jsonl").read_text().splitlines())
    }
    return NullRun(root, proc.stdout, json.loads((root / "manifest.json").read_text()), records)


def test_the_null_agent_is_measured_on_every_training_task(
    null_run: NullRun, hab_train: Path
) -> None:
    tasks = {p.stem for p in hab_train.glob("*/*.json")}
    assert len(tasks) == 100 and set(null_run.records) == tasks
    assert {r["status"] for r in null_run.records.values()} <= {"failed", "passed"}
    assert null_run.manifest["environment"]["kind"] == "hab"
    details = null_run.manifest["environment"]["details"]
    assert details["state_store"] == "agent_browser" and details["agent_writable_state"] is False


def test_null_verdicts_equal_the_benchmarks_evaluator_on_the_same_states(
    null_run: NullRun, hab_train: Path
) -> None:
    """Per task and per check: the benchmark's evaluator on each attempt's end state agrees."""
    reference = _reference()
    compared = 0
    for path in sorted(hab_train.glob("*/*.json")):
        task = json.loads(path.read_text())
        record = null_run.records[task["id"]]
        state = json.loads(
            (null_run.root / "traces" / task["id"] / "1" / "end_state.json").read_text()
        )
        assert len(record["checks"]) == len(task["evals"])
        ours_total = theirs_total = 0.0
        for check, spec in zip(record["checks"], task["evals"], strict=True):
            if spec["type"] != "jmespath":
                continue
            success, points, _ = reference.evaluate(spec, state)
            assert (check["outcome"] == "pass") is success, (task["id"], spec["query"])
            assert check["earned"] == points, (task["id"], spec["query"])
            ours_total += check["earned"]
            theirs_total += points
            compared += 1
        assert ours_total == theirs_total, task["id"]
    assert compared > 300


def test_null_verdicts_equal_the_benchmarks_own_recorded_null_runs(
    null_run: NullRun, hab_states: Path
) -> None:
    """The benchmark's own null runs (recorded on its portals, scored by its harness) got the
    same deterministic verdicts as endstate's null attempts on the same tasks."""
    names = sorted(hab_states.glob("*.null.score.json"))
    assert names
    for path in names:
        theirs = json.loads(path.read_text())
        ours = null_run.records[theirs["task_id"]]
        for check, result in zip(ours["checks"], theirs["eval_results"], strict=True):
            if result["type"] == "jmespath":
                assert (check["outcome"] == "pass") is result["success"], theirs["task_id"]


def test_every_report_says_where_the_state_lived(null_run: NullRun) -> None:
    assert "The end state lived in the browser the agent drove" in null_run.stdout
    assert "no script execution" in null_run.stdout
    assert "AGENT-WRITABLE" not in null_run.stdout

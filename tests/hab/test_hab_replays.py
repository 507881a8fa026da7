"""Six training tasks solved on the benchmark's own portals by replayed trajectories.

`tests/fixtures/hab-replays/<task id>.json` performs each task through endstate's action
vocabulary (clicks, fills, downloads... by role and name, never by script). One `endstate run`
with `--agent replay:DIR` plays all six; every deterministic check of every task must pass, and
the benchmark's own JMESPath evaluator must give the same verdicts on each saved end state.
The rubric checks stay ungraded (no judge), so no task *passes*: the run is validation.
Skipped, saying why, without ../shared (the portals, the corpus and the benchmark's harness).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from endstate.hab.build import PortalBuild
from test_parity_differential import _reference
from test_subtask_success import SIX, report_counts

from .test_hab_runs import hab_endstate

REPLAYS = FIXTURES / "hab-replays"

# What each trajectory covers: every family, every portal, and a task solved by not acting.
COVERAGE = {
    "emr-easy-1": "EHR only: no prior auth needed (Medicare Advantage); note, then clear",
    "emr-medium-1": "prior auth submitted on Payer A, letter attached; number noted in the EHR",
    "emr-medium-10": "prior auth through the Payer B four-step wizard; number noted in the EHR",
    "fax-easy-1": "DME: three documents downloaded and sent on the fax portal; note, clear",
    "denial-medium-1": "denial appealed on Payer A with the clinical notes; disposition in EHR",
    "fax-hard-3": "correct inaction: insurance inactive, so a note and no fax, no clear",
}
FAMILIES = {"prior_auth", "appeals_denials", "dme"}


@dataclass(frozen=True)
class ReplayRun:
    root: Path
    manifest: dict[str, Any]
    records: dict[str, dict[str, Any]]
    tasks: dict[str, dict[str, Any]]  # the benchmark's task documents, by id

    def trace(self, task_id: str, name: str) -> Any:
        return json.loads((self.root / "traces" / task_id / "1" / name).read_text())


def _task_docs(hab_train: Path) -> dict[str, dict[str, Any]]:
    docs = {}
    for task_id in COVERAGE:
        (path,) = hab_train.glob(f"*/{task_id}.json")
        docs[task_id] = json.loads(path.read_text()) | {"family": path.parent.name}
    return docs


@pytest.fixture(scope="module")
def replay_run(
    portal_build: PortalBuild,
    hab_cache: Path,
    hab_train: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> ReplayRun:
    out = tmp_path_factory.mktemp("hab-replays")
    proc = hab_endstate(
        "run", "--corpus", hab_train, "--tasks", ",".join(COVERAGE),
        "--agent", f"replay:{REPLAYS}", "--out", out, cache=hab_cache, cwd=out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (root,) = [p for p in out.iterdir() if p.is_dir()]
    records = {
        r["task_id"]: r for r in map(json.loads, (root / "records.jsonl").read_text().splitlines())
    }
    manifest = json.loads((root / "manifest.json").read_text())
    return ReplayRun(root, manifest, records, _task_docs(hab_train))


def test_the_folder_holds_one_portable_trajectory_per_covered_task(hab_train: Path) -> None:
    assert {p.stem for p in REPLAYS.glob("*.json")} == set(COVERAGE)
    docs = _task_docs(hab_train)
    assert {d["family"] for d in docs.values()} == FAMILIES
    for task_id in COVERAGE:
        text = (REPLAYS / f"{task_id}.json").read_text()
        # Run ids and ports differ per attempt: a trajectory names neither, nor any absolute URL.
        assert not re.search(r"https?://|127\.0\.0\.1|localhost|run_id|es-[0-9a-f]{8}", text), (
            task_id
        )
        actions = json.loads(text)["actions"]
        assert actions[-1]["type"] == "done" and len(actions) <= 50, task_id


def test_every_replayed_task_earns_every_deterministic_point(replay_run: ReplayRun) -> None:
    assert set(replay_run.records) == set(COVERAGE)
    for task_id, doc in replay_run.tasks.items():
        record = replay_run.records[task_id]
        played = replay_run.trace(task_id, "actions.json")
        failed = [(a["step"], a["result"]) for a in played if not a["ok"]]
        assert not failed and record["error"] is None, (task_id, failed, record["error"])
        assert record["facts"]["claim"] == "done", (task_id, record["facts"])
        assert len(record["checks"]) == len(doc["evals"]), task_id
        deterministic = judged = 0.0
        for check, spec in zip(record["checks"], doc["evals"], strict=True):
            if spec["type"] != "jmespath":
                assert check["outcome"] == "ungraded", (task_id, check["description"])
                judged += check["points"]
                continue
            assert check["outcome"] == "pass", (
                f"{task_id}: check {check['index']} ({check['description']}) "
                f"{spec['query']!r}: {check['outcome']}, {check['detail']}"
            )
            deterministic += check["points"]
        # Nothing but the judge's points is missing, and those are only ungraded.
        assert record["earned"] == deterministic, task_id
        assert record["ungraded_points"] == judged and record["flagged"] is (judged > 0), task_id


def test_the_benchmarks_evaluator_gives_the_same_verdicts_on_each_end_state(
    replay_run: ReplayRun,
) -> None:
    reference = _reference()
    for task_id, doc in replay_run.tasks.items():
        record = replay_run.records[task_id]
        state = replay_run.trace(task_id, "end_state.json")
        ours_total = theirs_total = 0.0
        for check, spec in zip(record["checks"], doc["evals"], strict=True):
            if spec["type"] != "jmespath":
                continue
            success, points, _ = reference.evaluate(spec, state)
            assert success, (task_id, spec["query"])
            assert (check["outcome"] == "pass") is success, (task_id, spec["query"])
            assert check["earned"] == points, (task_id, spec["query"])
            ours_total += check["earned"]
            theirs_total += points
        assert ours_total == theirs_total == record["earned"], task_id


def test_the_numbers_written_in_the_ehr_are_the_ones_the_portals_issued(
    replay_run: ReplayRun,
) -> None:
    """The trajectories write confirmation numbers they knew in advance: that holds only while
    the portals' counters restart with each page load and the same actions are taken."""
    issued: dict[str, tuple[str | int, ...]] = {
        "emr-medium-1": ("aetna_state", "differences", "priorAuth", "added", 0, "confirmationId"),
        "emr-medium-10": ("anthem_state", "differences", "priorAuth", "added", 0, "confirmationId"),
        "denial-medium-1": (
            "payer_a_state", "full_state", "appealActions", "submittedConfirmationNumber",
        ),
    }  # fmt: skip
    for task_id, path in issued.items():
        state = replay_run.trace(task_id, "end_state.json")
        number: Any = state
        for key in path:
            number = number[key]
        assert re.fullmatch(r"(PA-2026-|APL-AET-)\d{6}", number), (task_id, number)
        written = json.dumps(
            [c["content"] for c in state["full_state"].get("communications", [])]
            + state["full_state"].get("triageNotes", [])
        )
        assert number in written, (task_id, number)


def test_the_inaction_task_left_the_world_as_it_should(replay_run: ReplayRun) -> None:
    state = replay_run.trace("fax-hard-3", "end_state.json")
    assert state["full_state"].get("faxPortal", {}).get("faxesSent", 0) == 0
    assert "REF-2025-213" not in state["full_state"].get("clearedReferrals", [])
    assert state["full_state"]["agentActions"]["addedProgressNote"] is True


def test_the_manifest_marks_the_run_as_an_unscored_replay(replay_run: ReplayRun) -> None:
    agent = replay_run.manifest["agent"]
    assert (agent["kind"], agent["scored"]) == ("replay", False)
    assert agent["config"]["tasks"] == sorted(COVERAGE)
    assert replay_run.manifest["mode"] == "validation"
    assert replay_run.manifest["environment"]["kind"] == "hab"


def test_subtask_success_by_category_matches_a_count_by_hand(replay_run: ReplayRun) -> None:
    """The report's six categories against a count from records.jsonl, each check's category
    read from the benchmark's own task file (its `evals[i].category`), not from the record."""
    passed: Counter[str] = Counter()
    total: Counter[str] = Counter()
    lines = (replay_run.root / "records.jsonl").read_text().splitlines()
    for record in map(json.loads, lines):
        assert record["attempt"] == "1"
        evals = replay_run.tasks[record["task_id"]]["evals"]
        measured = record["status"] not in ("unmeasurable", "blocked")
        for check in record["checks"]:
            category = evals[check["index"]]["category"]
            assert category in SIX and check["category"] == category, (record["task_id"], check)
            if check["outcome"] != "ungraded":
                total[category] += 1
                passed[category] += measured and check["outcome"] == "pass"
    text = (replay_run.root / "report.txt").read_text()
    shown = report_counts(text, "Subtask success by subtask category")
    assert shown == {k: (passed[k], total[k]) for k in total} and len(shown) >= 4
    overall = report_counts(text, "Subtask success beside task success")
    assert overall == {"all tasks": (sum(passed.values()), sum(total.values()))}
    for category in SIX:  # every category has its row, a dash where no check had it
        assert re.search(rf"^\s*{category}\s*│", text, re.M), category

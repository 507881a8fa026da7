"""`endstate grid`: a 2 agents × 2 prompt modes × 2 observations grid of replay agents, each
configuration replaying its own folder of trajectories, run from one command, killed mid-way,
resumed, and reported; every figure checked against what the trajectories were made to do."""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from endstate.errors import EndstateError
from endstate.grid.cells import plan_cells
from endstate.grid.spec import load_grid, parse_grid

from .conftest import write_reference_trajectory

TASKS = [f"pa-easy-{i}" for i in range(1, 5)]
# Per (agent, prompt mode, observation): how many tasks are solved in full, and how many are
# half done (the note written, the referral not cleared: one check of two).
PLAN = {
    ("solver", "task", "screenshot"): (1, 1),
    ("solver", "task", "both"): (2, 1),
    ("solver", "task+guidance", "screenshot"): (3, 0),
    ("solver", "task+guidance", "both"): (4, 0),
    ("idler", "task", "screenshot"): (0, 0),
    ("idler", "task", "both"): (0, 2),
    ("idler", "task+guidance", "screenshot"): (1, 0),
    ("idler", "task+guidance", "both"): (1, 1),
}
GIVE_UP = {"version": 1, "actions": [{"type": "give_up", "message": "not this one"}]}


def write_trajectories(root: Path, reference: Path) -> None:
    actions = json.loads(reference.read_text())["actions"]
    half = [a for a in actions if a.get("target", {}).get("name") != "Clear from worklist"]
    half[-1] = {"type": "done", "message": "Noted."}
    for (agent, prompt, observation), (solved, halved) in PLAN.items():
        folder = root / agent / f"{prompt}-{observation}"
        folder.mkdir(parents=True)
        for i, task in enumerate(TASKS):
            if i < solved:
                body = {"version": 1, "actions": actions}
            elif i < solved + halved:
                body = {"version": 1, "actions": half}
            else:
                body = GIVE_UP
            (folder / f"{task}.json").write_text(json.dumps(body))


GRID = """\
name: replay-ablation
corpus: corpus
attempts: 1
workers: 2
agents:
  - name: solver
    agent: "replay:traj/solver/{prompt_mode}-{observation}"
    options: {action_timeout_s: 15}
  - name: idler
    agent: "replay:traj/idler/{prompt_mode}-{observation}"
    options: {action_timeout_s: 15}
prompt_modes: [task, task+guidance]
observations: [screenshot, both]
"""


def endstate(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "endstate", *args], capture_output=True, text=True, **kw
    )  # type: ignore[call-overload]


def table_rows(path: Path) -> list[dict[str, str]]:
    """A table file's rows as dicts, its `# ` note rows left out."""
    header, *rows = [r for r in csv.reader(path.read_text().splitlines()) if r]
    return [dict(zip(header, r, strict=True)) for r in rows if not r[0].startswith("# ")]


def passes(run_dir: Path) -> dict[str, float]:
    """Attempt 1's full-credit pass of each task, read straight from records.jsonl."""
    out = {}
    for line in (run_dir / "records.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["attempt"] == "1":
            out[record["task_id"]] = 1.0 if record["status"] == "passed" else 0.0
    return out


def independent_bootstrap(
    a: dict[str, float], b: dict[str, float], resamples: int = 20_000
) -> tuple[float, float]:
    """A paired percentile bootstrap of A − B over shared tasks, in plain Python."""
    rng = random.Random(12345)
    shared = sorted(a.keys() & b.keys())
    diffs = []
    for _ in range(resamples):
        draw = [rng.choice(shared) for _ in shared]
        diffs.append(sum(a[t] - b[t] for t in draw) / len(draw))
    diffs.sort()
    return diffs[int(0.025 * resamples)], diffs[int(0.975 * resamples) - 1]


def grid_state(root: Path) -> dict[str, object]:
    try:
        return json.loads((root / "grid.json").read_text())  # type: ignore[no-any-return]
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


@pytest.fixture
def grid_file(embedded_corpus: Callable[..., Path], tmp_path: Path) -> Path:
    embedded_corpus(len(TASKS))  # tmp_path/corpus
    write_trajectories(tmp_path / "traj", write_reference_trajectory(tmp_path / "ref.json"))
    path = tmp_path / "grid.yaml"
    path.write_text(GRID)
    return path


def test_a_grid_runs_from_one_command_resumes_after_a_kill_and_reports(
    grid_file: Path, tmp_path: Path
) -> None:
    root = tmp_path / "grid"
    proc = subprocess.Popen(
        [sys.executable, "-m", "endstate", "grid", "run", str(grid_file), "--out", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            cells = grid_state(root).get("cells", [])
            statuses = [c["status"] for c in cells]  # type: ignore[index, union-attr]
            if statuses.count("done") >= 2 and "running" in statuses:
                break
            assert proc.poll() is None, "the grid ended before it could be killed"
            time.sleep(0.2)
        else:
            pytest.fail("the grid never reached its third cell")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = grid_state(root)
    first_runs = {c["id"]: c["run_dir"] for c in before["cells"] if c["status"] == "done"}  # type: ignore[union-attr, index]

    again = endstate("grid", "run", str(grid_file), "--out", str(root))
    assert again.returncode == 0, again.stdout + again.stderr
    after = grid_state(root)
    cells = {c["id"]: c for c in after["cells"]}  # type: ignore[union-attr, index]
    assert len(cells) == 8 and all(c["status"] == "done" for c in cells.values())
    assert after["finished_at"]
    # Finished cells were not run again; no cell holds two runs.
    for cell_id, run_dir in first_runs.items():
        assert cells[cell_id]["run_dir"] == run_dir
    for c in cells.values():
        assert len(list((root / c["folder"]).glob("*/manifest.json"))) == 1

    # Every figure is what the trajectories were made to do.
    rows = table_rows(root / "report" / "cells.csv")
    assert len(rows) == 8
    for row in rows:
        solved, halved = PLAN[(row["agent"], row["prompt_mode"], row["observation"])]
        assert int(row["passed"]) == solved, row
        assert float(row["task_success"]) == pytest.approx(solved / 4)
        checks = 2 * len(TASKS)
        assert float(row["subtask_success"]) == pytest.approx((2 * solved + halved) / checks)
    page = (root / "report" / "grid.html").read_text()
    assert page.count("<svg") >= 4  # task and subtask heat maps for both prompt modes
    assert "Task success, prompt mode task+guidance" in page
    assert "Head-to-head" in page and "Cost by difficulty" in page
    assert (root / "report" / "tables.md").read_text().count("| solver |") >= 4
    # No cell reported tokens or dollars: the cost table says missing, never zero.
    cost = table_rows(root / "report" / "cost.csv")
    assert cost and all(r["dollars_total"] == "" and r["dollars_missing"] != "0" for r in cost)
    assert "missing" in (root / "report" / "cost.md").read_text()

    # The head-to-head agrees with a paired bootstrap computed here from the cells' records.
    both = table_rows(root / "report" / "head_to_head.csv")
    assert len(both) == 2 * 28  # task and subtask tables, every pair of 8 configurations
    pairs = {(r["a"], r["b"]): r for r in both if r["table"].startswith("Head-to-head: task")}
    assert len(pairs) == 28
    a_id, b_id = "solver/task/both", "idler/task+guidance/both"  # 2 of 4 against 1 of 4
    low, high = independent_bootstrap(
        passes(root / cells[a_id]["run_dir"]), passes(root / cells[b_id]["run_dir"])
    )
    row = pairs[(a_id, b_id)]
    assert float(row["difference"]) == pytest.approx(0.25)
    assert (low, high) != (0.25, 0.25)  # the tasks disagree: the interval is not a point
    assert float(row["ci_low"]) == pytest.approx(low, abs=0.03)
    assert float(row["ci_high"]) == pytest.approx(high, abs=0.03)

    # A cell's run is an ordinary run: its own report agrees with the grid's row.
    solver_best = cells["solver/task+guidance/both"]
    report = (root / solver_best["run_dir"] / "report.txt").read_text()
    assert "4/4" in report


def test_an_edited_grid_file_is_refused_on_resume(grid_file: Path, tmp_path: Path) -> None:
    root = tmp_path / "g"
    grid = load_grid(grid_file)
    from endstate.grid.runner import open_grid

    open_grid(grid, root)
    grid_file.write_text(GRID.replace("attempts: 1", "attempts: 2"))
    with pytest.raises(EndstateError, match="changed since the grid in"):
        open_grid(load_grid(grid_file), root)


def test_an_axis_an_agent_would_ignore_is_refused() -> None:
    spec = parse_grid(
        "name: g\nagents: [{name: a, agent: 'replay:traj/x'}]\nprompt_modes: [task, task+guidance]\n",
        "g.yaml",
    )
    with pytest.raises(EndstateError, match=r"g.yaml: agents.0 \(a\): kind 'replay' takes no"):
        plan_cells(spec, "g.yaml")


def test_kinds_that_take_an_axis_get_it_as_their_option() -> None:
    spec = parse_grid(
        "name: g\n"
        "agents: [{name: m, agent: 'cu-chat:model', options: {base_url: 'http://127.0.0.1:9/v1'}}]\n"
        "prompt_modes: [task, task+guidance]\nobservations: [screenshot, accessibility, both]\n",
        "g.yaml",
    )
    cells = plan_cells(spec, "g.yaml")
    assert [c.id for c in cells][:2] == ["m/task/screenshot", "m/task/accessibility"]
    assert len(cells) == 6
    assert {(c.options["prompt_mode"], c.options["observe"]) for c in cells} == {
        (p, o) for p in ("task", "task+guidance") for o in ("screenshot", "accessibility", "both")
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: g\nagents: []\n", r"g.yaml: agents: List should have at least 1 item"),
        ("name: g\nagents: [{name: a, agent: null}]\n", r"g.yaml: agents.0.agent"),
        ("name: g\nagents: [{name: a, agent: n}]\nobservations: [pixels]\n", "observations.0"),
        ("name: g\nagents: [{name: a, agent: 'null'}, {name: a, agent: 'null'}]\n", "twice"),
        ("name: g\nagents: [{name: a, agent: 'null'}]\nextra: 1\n", "extra: Extra inputs"),
        ("name: [g\n", "not valid YAML"),
    ],
)
def test_bad_grid_files_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(EndstateError, match=message):
        parse_grid(text, "g.yaml")

"""The command line, run as a user runs it: real process, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import FIXTURES, HabCorpus, jmespath_check, task_doc

ENDSTATE = Path(sys.executable).with_name("endstate")


def endstate(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ENDSTATE), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "200", "NO_COLOR": "1"},
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def test_import_verify_lint_stats_show_on_a_benchmark_corpus(
    hab_corpus: HabCorpus, tmp_path: Path
) -> None:
    proc = endstate("corpus", "import", hab_corpus.root, "--name", "hab", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    vendored = tmp_path / "corpora" / "hab"
    assert (vendored / "endstate.lock.json").exists()
    assert "tree sha256" in proc.stdout

    verify = endstate("corpus", "verify", vendored)
    assert verify.returncode == 0 and verify.stdout.startswith("ok:")

    lint = endstate("corpus", "lint", vendored)
    assert lint.returncode == 0
    warned = hab_corpus.declared_warnings
    assert lint.stdout.count(f"warning {hab_corpus.warnings_family}/") == warned
    assert f"0 error(s), {warned} warning(s)" in lint.stdout

    stats = json.loads(endstate("corpus", "stats", vendored, "--json").stdout)
    assert stats["tasks"] == hab_corpus.tasks
    text = endstate("corpus", "stats", vendored).stdout
    assert "Rubric-judged share of weight" in text and f"{hab_corpus.tasks} tasks" in text

    sample = hab_corpus.sample
    shown = json.loads(
        endstate("corpus", "show", vendored, sample, "--projection", "--run-id", "r7").stdout
    )
    assert set(shown) == {"task_id", "instruction", "family", "scenario_label", "start_url"}
    assert shown["start_url"].endswith("run_id=r7")
    full = json.loads(endstate("corpus", "show", vendored, sample).stdout)
    assert full["grading"]["tier"] == "easy"


def test_edited_corpus_is_refused_in_one_line(hab_corpus: HabCorpus, tmp_path: Path) -> None:
    imported = endstate("corpus", "import", hab_corpus.root, "--name", "hab", cwd=tmp_path)
    assert imported.returncode == 0
    vendored = tmp_path / "corpora" / "hab"
    rel = f"prior_auth/{hab_corpus.sample}.json"
    edited = vendored / rel
    edited.write_text(edited.read_text() + "\n")
    assert_one_line_error(endstate("corpus", "verify", vendored), rel, "changed")
    states = tmp_path / "states"
    states.mkdir()
    assert_one_line_error(
        endstate("score", "--corpus", vendored, "--states", states),
        "edited after import",
        f"{hab_corpus.sample}.json",
    )


@pytest.mark.parametrize(
    ("content", "fragments"),
    [
        ('{"id": "t", "goal": ', ["t.json", "not valid JSON", "line 1"]),
        (json.dumps(task_doc("t", goal=["x"])), ["t.json", "$.goal", "valid string"]),
        (
            json.dumps(task_doc("t", [{"type": "fuzzy", "points": 1}])),
            ["t.json", "$.evals[0].type", "'fuzzy'"],
        ),
        (
            json.dumps(task_doc("t", [jmespath_check("a", points="one")])),
            ["t.json", "$.evals[0].points"],
        ),
    ],
)
def test_bad_task_files_give_one_clear_line(
    content: str, fragments: list[str], make_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_corpus({"prior_auth/t.json": content})
    (tmp_path / "s").mkdir()
    assert_one_line_error(
        endstate("score", "--corpus", root, "--states", tmp_path / "s"), *fragments
    )
    assert_one_line_error(endstate("corpus", "stats", root), *fragments)
    lint = endstate("corpus", "lint", root)
    assert lint.returncode == 1 and "Traceback" not in lint.stderr


def test_score_writes_records_and_a_report_with_unmeasurable_state(
    make_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_corpus(
        {
            "prior_auth/a.json": task_doc("a", [jmespath_check("done")]),
            "prior_auth/b.json": task_doc("b", [jmespath_check("done")]),
            "dme/c.json": task_doc("c", [jmespath_check("done")], difficulty="hard"),
        }
    )
    states = tmp_path / "states"
    states.mkdir()
    (states / "a.json").write_text('{"done": true}')
    (states / "b.json").write_text("this is not json")
    proc = endstate(
        "score",
        "--corpus",
        root,
        "--states",
        states,
        "--out",
        tmp_path / "r.jsonl",
        "--report",
        tmp_path / "rep.txt",
        "--html",
        tmp_path / "rep.html",
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["status"]) for r in records] == [
        ("a", "passed"),
        ("b", "unmeasurable"),
        ("c", "unmeasurable"),
    ]
    assert (
        f"unmeasurable {states / 'b.json'}: state document unusable: not valid JSON" in proc.stderr
    )
    report = (tmp_path / "rep.txt").read_text()
    assert "Full-credit passes: 1/3 = 33.3%" in report
    assert "Unmeasurable: 2" in report
    assert "missing 1, unreadable 1" in report
    for n in range(1, 10):
        assert f"\n{n}. " in report
    html = (tmp_path / "rep.html").read_text()
    # Family, tier, scores; subtasks beside tasks, and by the checks' categories.
    assert html.count("<svg") == 5 and "Full-credit rate by family" in html
    assert "Subtask vs task success" in html and "Subtask success by category" in html
    assert "Full-credit passes: 1/3 = 33.3%" in html
    assert html.count("<li><strong>") == 9
    assert (
        html.count('class="status-unmeasurable"') == 2
        and "state document unusable: not valid JSON" in html
    )


def test_missing_paths_give_one_clear_line(tmp_path: Path) -> None:
    assert_one_line_error(endstate("corpus", "verify", tmp_path / "nope"), "nope")
    assert_one_line_error(
        endstate("corpus", "stats", tmp_path / "nope"), "corpus directory not found"
    )
    assert_one_line_error(
        endstate("corpus", "import", tmp_path / "nope", "--name", "x"), "not a directory"
    )


def test_one_poisonous_state_never_stops_the_scoring_of_the_others(tmp_path: Path) -> None:
    corpus = FIXTURES / "hab-mini"
    states = tmp_path / "states"
    states.mkdir()
    solved = FIXTURES / "hab-mini-states" / "mini-pa-easy-1.solved.state.json"
    (states / "mini-pa-easy-1.json").write_bytes(solved.read_bytes())
    huge = "1" + "0" * 400  # an integer no float can hold
    (states / "mini-fax-easy-1.json").write_text(
        '{"full_state": {"fax": {"sent": false, "count": ' + huge + "}}}"
    )
    (states / "mini-denial-hard-1.json").write_text(
        '{"full_state": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    (states / "mini-dme-hard-1.json").write_text('{"full_state": {"order": 5}}')
    out = tmp_path / "records.jsonl"
    proc = endstate("score", "--corpus", corpus, "--states", states, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    records = {r["task_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert len(records) == 6  # every task in the corpus, supplied or not
    assert records["mini-pa-easy-1"]["earned"] == 3
    assert records["mini-denial-hard-1"]["status"] == "unmeasurable"
    assert "nested too deeply" in records["mini-denial-hard-1"]["error"]
    fax = records["mini-fax-easy-1"]
    assert fax["status"] == "failed" and len(fax["checks"]) == 3
    assert records["mini-dme-hard-1"]["status"] == "failed"


def test_tasks_for_another_website_are_refused_on_the_embedded_suite(tmp_path: Path) -> None:
    proc = endstate(
        "run", "--corpus", FIXTURES / "hab-mini", "--env", "embedded", "--out", tmp_path / "runs"
    )
    assert_one_line_error(
        proc, "6 of 6 task(s) cannot run on the embedded environment", "mini-portal.example"
    )
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_tasks_of_the_benchmarks_portals_say_how_to_set_them_up(tmp_path: Path) -> None:
    """Without --env, the tasks' website chooses the environment; the portals not being built
    here is one line naming the setup command."""
    proc = subprocess.run(
        [str(ENDSTATE), "run", "--corpus", str(FIXTURES / "hab-mini"), "--out", str(tmp_path / "r")],
        capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"},
    )  # fmt: skip
    assert_one_line_error(
        proc, "these tasks run on the hab environment", "endstate env hab setup --source PATH"
    )


def test_a_browser_that_will_not_start_is_one_line_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-chromium"
    proc = subprocess.run(
        [str(ENDSTATE), "run", "--agent", "reference:builtin", "--tasks", "pa-*-001",
         "--out", str(tmp_path / "runs")],
        capture_output=True, text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "ENDSTATE_CHROMIUM": str(missing)},
    )  # fmt: skip
    assert_one_line_error(proc, "the browser", str(missing), "did not start")


def test_lint_of_a_folder_without_tasks_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert_one_line_error(endstate("corpus", "lint", tmp_path / "empty"), "no task files found")

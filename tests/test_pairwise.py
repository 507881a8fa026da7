"""Head-to-head tables: the paired bootstrap checked against one written here independently,
a pair whose difference is known by hand, pairs without shared tasks, runs on different
corpora, and the command over two real runs of the built-in corpus."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

import endstate
from endstate.agents.registry import make_agent
from endstate.builtin import builtin_corpus_path
from endstate.errors import EndstateError
from endstate.records import CheckVerdict, TaskRecord
from endstate.report.head_to_head_text import pairwise_tables
from endstate.report.pairwise import NamedRun, holm_rejections, pairwise
from endstate.report.tables_out import csv_text, markdown
from endstate.runs.session import RunOptions, execute

PIN = "endstate-builtin 98412f99"


def record(task: str, passed: bool, checks: tuple[int, int], attempt: str = "1") -> TaskRecord:
    """A headline-able record with `checks` = (passed, total) counted checks."""
    ok, total = checks
    verdicts = [
        CheckVerdict(
            index=i,
            type="jmespath",
            points=1,
            earned=1.0 if i < ok else 0.0,
            outcome="pass" if i < ok else "fail",
        )
        for i in range(total)
    ]
    return TaskRecord(
        task_id=task,
        attempt=attempt,
        family="prior_auth",
        tier="easy",
        status="passed" if passed else "failed",
        score=ok / total if total else 0.0,
        earned=ok,
        weight=total,
        checks=verdicts,
    )


def run(name: str, rows: dict[str, tuple[bool, tuple[int, int]]], pin: str = PIN) -> NamedRun:
    return NamedRun(name, [record(t, p, c) for t, (p, c) in rows.items()], pin)


def _independent(
    a: list[tuple[bool, int, int]], b: list[tuple[bool, int, int]], resamples: int, seed: int
) -> tuple[tuple[float, float], float, tuple[float, float], float]:
    """A plain-Python paired bootstrap over task indices: (task CI, task p, subtask CI, p)."""
    rng = random.Random(seed)
    n = len(a)
    task, sub = [], []
    for _ in range(resamples):
        pick = [rng.randrange(n) for _ in range(n)]
        task.append(sum(a[i][0] - b[i][0] for i in pick) / n)
        a_share = sum(a[i][1] for i in pick) / sum(a[i][2] for i in pick)
        b_share = sum(b[i][1] for i in pick) / sum(b[i][2] for i in pick)
        sub.append(a_share - b_share)

    def summary(diffs: list[float]) -> tuple[tuple[float, float], float]:
        diffs = sorted(diffs)
        low, high = diffs[int(0.025 * len(diffs))], diffs[int(0.975 * len(diffs)) - 1]
        tail = min(sum(d <= 0 for d in diffs), sum(d >= 0 for d in diffs)) / len(diffs)
        return (low, high), min(1.0, 2 * tail)

    (t_ci, t_p), (s_ci, s_p) = summary(task), summary(sub)
    return t_ci, t_p, s_ci, s_p


def test_interval_and_p_value_agree_with_an_independent_bootstrap() -> None:
    gen = random.Random(7)
    a_rows, b_rows = {}, {}
    for i in range(60):
        total = gen.randint(2, 8)
        a_ok, b_ok = gen.randint(0, total), gen.randint(0, total)
        a_rows[f"t{i:02d}"] = (gen.random() < 0.55, (a_ok, total))
        b_rows[f"t{i:02d}"] = (gen.random() < 0.4, (b_ok, total))
    result = pairwise([run("A", a_rows), run("B", b_rows)], resamples=20_000, seed=3)
    [pair] = result.pairs
    assert pair.task is not None and pair.subtask is not None
    flat = [(float(p), ok, n) for p, (ok, n) in a_rows.values()]
    flat_b = [(float(p), ok, n) for p, (ok, n) in b_rows.values()]
    t_ci, t_p, s_ci, s_p = _independent(flat, flat_b, 20_000, seed=11)
    for ours, theirs in ((pair.task.interval, t_ci), (pair.subtask.interval, s_ci)):
        assert ours[0] == pytest.approx(theirs[0], abs=0.02)
        assert ours[1] == pytest.approx(theirs[1], abs=0.02)
    assert pair.task.p_value == pytest.approx(t_p, abs=0.02)
    assert pair.subtask.p_value == pytest.approx(s_p, abs=0.02)
    # The data were drawn so that neither p-value sits at an end of [0, 1]: the agreement is
    # a real one, not two saturated numbers.
    assert 0.02 < t_p < 0.98 and 0.02 < s_p < 0.98


def test_a_hand_made_pair_has_its_known_difference_and_uses_first_attempts() -> None:
    a = run("A", {"t1": (True, (2, 2)), "t2": (True, (2, 2)), "t3": (True, (2, 2)),
                  "t4": (False, (1, 2))})  # fmt: skip
    b = run("B", {"t1": (True, (2, 2)), "t2": (False, (1, 2)), "t3": (False, (0, 2)),
                  "t4": (False, (0, 2))})  # fmt: skip
    # A later attempt of B that passes everything is not the headline: it must not count.
    b = NamedRun("B", [*b.records, record("t3", True, (2, 2), attempt="2")], PIN)
    result = pairwise([a, b], resamples=2_000)
    [pair] = result.pairs
    assert (pair.a, pair.b, pair.shared_tasks) == ("A", "B", 4)
    assert pair.task is not None and pair.subtask is not None
    assert (pair.a_passed, pair.b_passed) == (3, 1)
    assert pair.task.difference == pytest.approx(0.5)
    assert (pair.a_checks, pair.b_checks) == ((7, 8), (3, 8))
    assert pair.subtask.difference == pytest.approx(0.5)
    low, high = pair.task.interval
    assert 0 <= low <= 0.5 <= high <= 1
    # Swapping the runs flips every sign, and the same draw gives the mirrored interval.
    [swapped] = pairwise([b, a], resamples=2_000).pairs
    assert swapped.task is not None
    assert swapped.task.difference == pytest.approx(-0.5)
    assert swapped.task.interval == pytest.approx((-high, -low))
    assert swapped.task.p_value == pytest.approx(pair.task.p_value)


def test_identical_runs_differ_by_nothing_with_p_one() -> None:
    rows = {f"t{i}": (i % 2 == 0, (i % 3, 3)) for i in range(10)}
    [pair] = pairwise([run("A", rows), run("B", rows)]).pairs
    assert pair.task is not None and pair.subtask is not None
    assert pair.task.difference == 0 and pair.task.interval == (0.0, 0.0)
    assert pair.task.p_value == 1.0 and not pair.task.significant and not pair.task.holm


def test_seeded_and_disclosed() -> None:
    gen = random.Random(1)
    rows_a = {f"t{i}": (gen.random() < 0.6, (gen.randint(0, 4), 4)) for i in range(30)}
    rows_b = {f"t{i}": (gen.random() < 0.4, (gen.randint(0, 4), 4)) for i in range(30)}
    runs = [run("A", rows_a), run("B", rows_b)]
    first, again = pairwise(runs, resamples=5_000, seed=4), pairwise(runs, resamples=5_000, seed=4)
    assert first == again
    assert pairwise(runs, resamples=5_000, seed=5).pairs[0].task != first.pairs[0].task
    text = markdown(pairwise_tables(first))
    assert "5,000 resamples, seed 4" in text


def test_ten_thousand_resamples_over_a_hundred_tasks_are_fast() -> None:
    gen = random.Random(2)
    runs = [
        run(name, {f"t{i}": (gen.random() < 0.5, (gen.randint(0, 6), 6)) for i in range(100)})
        for name in ("A", "B", "C")
    ]
    start = time.perf_counter()
    result = pairwise(runs, resamples=10_000)
    assert time.perf_counter() - start < 5  # three pairs; about 0.1 s each on a laptop
    assert len(result.pairs) == 3


def test_pairs_without_shared_tasks_are_shown_not_dropped_and_the_caveat_counts_tests() -> None:
    a = run("A", {"t1": (True, (1, 1)), "t2": (False, (0, 1))})
    b = run("B", {"t1": (False, (0, 1)), "t2": (False, (0, 1))})
    c = run("C", {"x1": (True, (1, 1))})
    result = pairwise([a, b, c], resamples=1_000)
    assert [(p.a, p.b) for p in result.pairs] == [("A", "B"), ("A", "C"), ("B", "C")]
    lonely = [p for p in result.pairs if p.shared_tasks == 0]
    assert len(lonely) == 2 and all(p.task is None and p.subtask is None for p in lonely)
    assert result.tested == 1
    tables = pairwise_tables(result)
    for table in tables:
        assert sum("no shared tasks" in row for row in table.rows) == 2
        assert len(table.rows) == 3
    text = markdown(tables)
    assert "1 pair(s) tested per measure, no correction applied" in text
    assert "Bonferroni threshold is p < 0.05" in text
    sheet = list(csv.reader(io.StringIO(csv_text(tables))))
    assert sum("no shared tasks" in row for row in sheet) == 4
    assert any(row and row[0].startswith("# ") and "no correction" in row[0] for row in sheet)


def test_a_pair_without_counted_checks_is_no_subtask_test_and_the_caveat_says_so() -> None:
    a = run("A", {"t1": (True, (1, 1)), "t2": (False, (0, 1))})
    b = run("B", {"t1": (False, (0, 1)), "t2": (True, (1, 1))})
    bare = run("C", {"t1": (False, (0, 0)), "t2": (False, (0, 0))})  # no verdicts at all
    result = pairwise([a, b, bare], resamples=500)
    assert [p.subtask is not None for p in result.pairs] == [True, False, False]
    assert [p.task is not None for p in result.pairs] == [True, True, True]
    caveat = result.caveat()
    assert "3 pair(s) tested for task success and 1 for subtask success" in caveat
    assert "p < 0.01667 for task success and p < 0.05 for subtask success" in caveat
    subtask_table = pairwise_tables(result)[1]
    assert sum("no counted checks" in row for row in subtask_table.rows) == 2


def test_holm_step_down() -> None:
    assert holm_rejections([0.01, 0.04, 0.03]) == [True, False, False]
    assert holm_rejections([0.01, 0.02, 0.03]) == [True, True, True]
    assert holm_rejections([0.2, 0.001]) == [False, True]
    assert holm_rejections([]) == []


def test_different_corpora_are_refused_unless_allowed_and_then_disclosed() -> None:
    a = run("A", {"t1": (True, (1, 1))}, pin="corpus-one aaaa")
    b = run("B", {"t1": (False, (0, 1))}, pin="corpus-two bbbb")
    with pytest.raises(EndstateError) as refused:
        pairwise([a, b])
    message = str(refused.value)
    assert "corpus-one aaaa" in message and "corpus-two bbbb" in message
    assert "--allow-different-corpora" in message
    allowed = pairwise([a, b], resamples=500, allow_different_corpora=True)
    assert allowed.pairs[0].shared_tasks == 1
    assert "different corpora (allowed)" in markdown(pairwise_tables(allowed))


def test_bad_input_is_one_clear_error() -> None:
    a = run("A", {"t1": (True, (1, 1))})
    with pytest.raises(EndstateError, match="at least two runs"):
        pairwise([a])
    with pytest.raises(EndstateError, match="A given twice"):
        pairwise([a, a])


# --- over real run directories ----------------------------------------------------------


def _execute(spec: str, out: Path) -> Path:
    result = asyncio.run(
        execute(
            RunOptions(
                corpus=builtin_corpus_path(),
                agent=make_agent(spec),
                agent_spec=spec,
                out=out,
                workers=2,
                time_limit=120,
                tasks="pa-*g8-00[1-3]",
            )
        )
    )
    return result.store.root


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    return _execute("reference:builtin", root / "ref"), _execute("null", root / "null")


def _cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    src = str(Path(endstate.__file__).resolve().parents[1])
    return subprocess.run(
        [sys.executable, "-m", "endstate", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ, "PYTHONPATH": src, "COLUMNS": "250", "NO_COLOR": "1"},
    )


def test_pairwise_over_two_real_runs(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    ref, null = two_runs
    done = _cli(
        "pairwise", ref, "--name", f"nothing={null}", "--resamples", "3000", "--seed", "2",
        "--markdown", tmp_path / "h.md", "--csv", tmp_path / "h.csv", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "reference:builtin" in done.stdout and "nothing" in done.stdout
    assert "3,000 resamples, seed 2" in done.stdout and "no correction applied" in done.stdout
    rows = [r for r in csv.DictReader(io.StringIO((tmp_path / "h.csv").read_text()))
            if not r["table"].startswith("#")]  # fmt: skip
    task = next(r for r in rows if "task success" in r["table"])
    # The reference agent passes every task it plays; the null agent none.
    assert (task["a"], task["b"], task["shared_tasks"]) == ("reference:builtin", "nothing", "3")
    assert (task["a_passed"], task["b_passed"], float(task["difference"])) == ("3", "0", 1.0)
    assert "| reference:builtin | nothing | 3 |" in (tmp_path / "h.md").read_text()
    # A run on another corpus pin is refused, naming both pins.
    other = tmp_path / "other"
    other.mkdir()
    (other / "records.jsonl").write_bytes((null / "records.jsonl").read_bytes())
    manifest = json.loads((null / "manifest.json").read_text())
    manifest["corpus"]["name"] = "elsewhere"
    (other / "manifest.json").write_text(json.dumps(manifest))
    refused = _cli("pairwise", ref, other, cwd=tmp_path)
    assert refused.returncode == 1
    assert "different corpora" in refused.stderr and "elsewhere" in refused.stderr
    assert "Traceback" not in refused.stderr
    allowed = _cli("pairwise", ref, other, "--allow-different-corpora", "--resamples", "500",
                   cwd=tmp_path)  # fmt: skip
    assert allowed.returncode == 0, allowed.stderr
    assert "different corpora (allowed)" in allowed.stdout
    for args, says in (
        (("pairwise", ref), "at least two runs"),
        (("pairwise", ref, "--name", "oops"), "expected NAME=RUN_DIR"),
    ):
        bad = _cli(*args, cwd=tmp_path)
        assert bad.returncode == 1 and says in bad.stderr and "Traceback" not in bad.stderr


def test_cost_over_two_real_runs(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    ref, null = two_runs
    prices = tmp_path / "prices.yaml"
    prices.write_text("some-model: {input_per_mtok: 1.0, output_per_mtok: 2.0}\n")
    done = _cli("cost", ref, null, "--prices", prices, "--csv", tmp_path / "c.csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [r for r in csv.DictReader(io.StringIO((tmp_path / "c.csv").read_text()))
            if not r["table"].startswith("#")]  # fmt: skip
    overall = {r["run"]: r for r in rows if r["tier"] == "overall"}
    assert set(overall) == {"reference:builtin", "null"}
    for r in overall.values():
        # Neither agent has a model: tokens and dollars are missing, never zero.
        assert r["attempts"] == "3" and r["prompt_tokens_missing"] == "3"
        assert r["prompt_tokens_total"] == "" and r["dollars_total"] == ""
    assert float(overall["reference:builtin"]["steps_total"]) > 0
    assert "missing" in done.stdout
    bad = _cli("cost", ref, "--prices", tmp_path / "none.yaml", cwd=tmp_path)
    assert bad.returncode == 1 and "none.yaml" in bad.stderr and "Traceback" not in bad.stderr

"""`endstate export`: a real run, exported, read back by the other tool, and compared."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from endstate.agents.registry import make_agent
from endstate.errors import EndstateError
from endstate.export.inspect_log import write_inspect
from endstate.export.parquet import write_parquet
from endstate.export.source import load_run
from endstate.manifest import Manifest
from endstate.records import TaskRecord
from endstate.runs.session import RunOptions, execute
from endstate.runs.store import RunStore
from runs.conftest import clear_task, referral_id

inspect_log = pytest.importorskip("inspect_ai.log")
pa_parquet = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

ENDSTATE = Path(sys.executable).with_name("endstate")
ATTEMPTS = 2


def _corpus(root: Path) -> Path:
    """Three tasks the null agent scores 0, 1.0 and 0.25: every score path is exercised."""
    ref = referral_id()
    untouched = {
        "type": "jmespath",
        "query": f"contains(ehr.cleared_referrals, '{ref}')",
        "expected_value": False,
        "description": "referral left on the worklist",
        "category": "Safety",
    }
    fails = clear_task("pa-x-1", ref)
    passes = clear_task("pa-x-2", ref)
    passes["evals"] = [{**untouched, "points": 2}]
    partial = clear_task("pa-x-3", ref)
    partial["evals"] = [{**untouched, "points": 1}, {**partial["evals"][0], "points": 3}]
    for task in (fails, passes, partial):
        path = root / "prior_auth" / f"{task['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(task, indent=2))
    return root


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("export")
    options = RunOptions(
        corpus=_corpus(base / "corpus"),
        agent=make_agent("null"),
        agent_spec="null",
        out=base / "runs",
        attempts=ATTEMPTS,
        workers=2,
    )
    result = asyncio.run(execute(options))
    return result.store.root


def _on_disk(root: Path) -> tuple[Manifest, dict[tuple[str, int], TaskRecord]]:
    store = RunStore(root)
    manifest = store.read_manifest()
    return manifest, {(r.task_id, int(r.attempt)): r for r in store.read_records()}


def endstate(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ENDSTATE), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "200", "NO_COLOR": "1"},
    )


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def test_inspect_log_reads_back_with_a_sample_per_attempt_scored_as_recorded(
    run_dir: Path, tmp_path: Path
) -> None:
    manifest, records = _on_disk(run_dir)
    assert {r.score for r in records.values()} == {0.0, 1.0, 0.25}

    out = tmp_path / "log.eval"
    write_inspect(load_run(run_dir), out)
    log = inspect_log.read_eval_log(str(out))

    assert log.status == "success" and log.error is None
    assert log.eval.task == manifest.corpus.name
    assert log.eval.model == "null" and log.eval.run_id == manifest.run_id
    assert log.eval.config.epochs == ATTEMPTS
    assert len(log.samples) == len(records) == 3 * ATTEMPTS
    for sample in log.samples:
        record = records[(sample.id, sample.epoch)]
        score = sample.scores["endstate"]
        assert score.value == record.score
        assert score.metadata["status"] == record.status
        assert [c["outcome"] for c in score.metadata["checks"]] == [
            c.outcome for c in record.checks
        ]
        assert score.explanation.startswith(record.status)
        assert sample.metadata["tier"] == record.tier and sample.metadata["attempt"] == str(
            sample.epoch
        )
        assert "Decide whether prior authorization is needed" in sample.input

    pins = log.eval.metadata
    assert pins["corpus_tree_hash"] == manifest.corpus.tree_hash
    assert pins["build"]["revision"] == manifest.build.revision
    assert pins["environment_fingerprint"] == manifest.environment.fingerprint
    assert pins["seed"] == manifest.seed and pins["judge"] is None
    assert "files" not in pins["corpus"]
    assert len(pins["disclosure"]) == 9

    (headline,) = log.results.scores
    # Headline: attempt 1 of each task — exactly one of the three passes, mean (0+1+0.25)/3.
    assert headline.metrics["accuracy"].value == pytest.approx(1 / 3)
    assert headline.metrics["mean"].value == pytest.approx(1.25 / 3)
    assert log.results.total_samples == log.results.completed_samples == 3 * ATTEMPTS


def test_json_suffix_writes_an_inspect_json_log_and_other_suffixes_are_refused(
    run_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "nested" / "log.json"
    write_inspect(load_run(run_dir), out)
    raw = json.loads(out.read_text())
    assert raw["eval"]["task"] and len(raw["samples"]) == 3 * ATTEMPTS
    assert len(inspect_log.read_eval_log(str(out)).samples) == 3 * ATTEMPTS
    assert [p.name for p in out.parent.iterdir()] == ["log.json"]  # no staging left behind

    with pytest.raises(EndstateError, match=r"must end in \.eval or \.json"):
        write_inspect(load_run(run_dir), tmp_path / "log.txt")


def test_an_interrupted_run_exports_as_an_error_with_missing_attempts_at_zero(
    run_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    lines = (copy / "records.jsonl").read_text().splitlines(keepends=True)
    dropped = TaskRecord.model_validate_json(lines[-1])
    (copy / "records.jsonl").write_text("".join(lines[:-1]))
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["finished_at"] = None
    (copy / "manifest.json").write_text(json.dumps(manifest))

    out = tmp_path / "log.eval"
    write_inspect(load_run(copy), out)
    log = inspect_log.read_eval_log(str(out))
    assert log.status == "error"
    assert "5 of 6 attempts recorded" in log.error.message
    assert len(log.samples) == 3 * ATTEMPTS  # never dropped
    (missing,) = [
        s for s in log.samples if (s.id, s.epoch) == (dropped.task_id, int(dropped.attempt))
    ]
    assert missing.scores["endstate"].value == 0.0
    assert missing.scores["endstate"].metadata["status"] == "unmeasurable"
    assert log.results.completed_samples == 3 * ATTEMPTS - 1

    write_parquet(load_run(copy), tmp_path / "rows.parquet")
    table = pa_parquet.read_table(tmp_path / "rows.parquet")
    assert json.loads(table.schema.metadata[b"endstate.interrupted"]) is True
    assert table.num_rows == 3 * ATTEMPTS


def test_parquet_has_one_row_per_attempt_with_the_records_values(
    run_dir: Path, tmp_path: Path
) -> None:
    manifest, records = _on_disk(run_dir)
    out = tmp_path / "rows.parquet"
    write_parquet(load_run(run_dir), out)

    frame = pd.read_parquet(out)
    assert len(frame) == len(records) == 3 * ATTEMPTS
    for row in frame.to_dict("records"):
        record = records[(row["task_id"], row["attempt"])]
        expected: dict[str, Any] = {
            "family": record.family,
            "tier": record.tier,
            "status": record.status,
            "passed": record.passed,
            "score": record.score,
            "earned": record.earned,
            "weight": record.weight,
            "ungraded_points": record.ungraded_points,
            "flagged": record.flagged,
            "claim": "none",
            "steps": 0,
        }
        assert {k: row[k] for k in expected} == expected
        checks = json.loads(row["checks"])
        assert [(c["index"], c["outcome"], c["earned"]) for c in checks] == [
            (c.index, c.outcome, c.earned) for c in record.checks
        ]
        assert row["attempt_seconds"] == record.facts.attempt_seconds  # type: ignore[union-attr]
    assert set(frame["run_id"]) == {manifest.run_id}
    assert set(frame["corpus_hash"]) == {manifest.corpus.tree_hash}
    assert set(frame["agent_spec"]) == {"null"}
    assert set(frame["build_revision"]) == {manifest.build.revision}
    assert frame["judge_model"].isna().all() and frame["tokens"].isna().all()
    assert frame["passed"].sum() == ATTEMPTS  # the negative-only task, every attempt

    table = pa_parquet.read_table(out)
    assert str(table.schema.field("tokens").type) == "int64"  # declared, not inferred from nulls
    pins = json.loads(table.schema.metadata[b"endstate.pins"])
    assert pins["corpus_tree_hash"] == manifest.corpus.tree_hash
    assert json.loads(table.schema.metadata[b"endstate.summary"])["passes"] == 1


def test_cli_exports_both_formats_to_the_run_directory_by_default(run_dir: Path) -> None:
    run_id = RunStore(run_dir).read_manifest().run_id
    inspect = endstate("export", run_dir, "--format", "inspect")
    assert inspect.returncode == 0, inspect.stderr
    default = run_dir / "export" / f"{run_id}.eval"
    assert f"wrote {default}" in inspect.stdout
    assert len(inspect_log.read_eval_log(str(default)).samples) == 3 * ATTEMPTS

    parquet = endstate("export", run_dir, "--format", "parquet")
    assert parquet.returncode == 0, parquet.stderr
    assert len(pd.read_parquet(run_dir / "export" / f"{run_id}.parquet")) == 3 * ATTEMPTS


def test_cli_bad_inputs_give_one_clear_line(run_dir: Path, tmp_path: Path) -> None:
    missing = one_error_line(endstate("export", tmp_path / "nope", "--format", "inspect"))
    assert "run directory not found" in missing

    not_a_run = one_error_line(endstate("export", tmp_path, "--format", "parquet"))
    assert "not a run directory" in not_a_run

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = blocker / "log.eval"
    unwritable = one_error_line(endstate("export", run_dir, "--format", "inspect", "--out", out))
    assert f"{out}: cannot write: {blocker} is not a directory" in unwritable

    fmt = one_error_line(endstate("export", run_dir, "--format", "csv"))
    assert "expected one of inspect, parquet" in fmt


@pytest.mark.parametrize(
    ("fmt", "modules"),
    [("inspect", ["inspect_ai", "inspect_ai.log"]), ("parquet", ["pyarrow", "pyarrow.parquet"])],
)
def test_without_the_extra_the_command_names_what_to_install(
    run_dir: Path, fmt: str, modules: list[str]
) -> None:
    hide = "".join(f"sys.modules[{m!r}] = None; " for m in modules)
    code = (
        f"import sys; {hide}"
        f"sys.argv = ['endstate', 'export', {str(run_dir)!r}, '--format', {fmt!r}]; "
        "from endstate.cli import main; main()"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    line = one_error_line(proc)
    assert f"--format {fmt} needs the" in line and "pip install 'endstate[export]'" in line

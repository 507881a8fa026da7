"""`endstate bundle` and `endstate rescore` on real runs of the embedded suite: a bundle
re-scores to agreement from itself alone, and every kind of tampering is named."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from endstate.agents.registry import make_agent
from endstate.bundle.archive import checksum_path, index_of, sha256, write_archive
from endstate.regress import gates
from endstate.runs.session import RunOptions, execute
from endstate.scoring.judge import Judge, JudgeConfig
from openai_double import ChatDouble

from .conftest import clear_task, referral_id, write_reference_trajectory


def _corpus(root: Path) -> Path:
    ref = referral_id()
    tasks = {"pa-easy-1": clear_task("pa-easy-1", ref, rubric=True), "pa-easy-2": None}
    tasks["pa-easy-2"] = clear_task("pa-easy-2", ref, viewed=True)
    for task_id, doc in tasks.items():
        path = root / "prior_auth" / f"{task_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2))
    return root


def _run(corpus: Path, spec: str, out: Path, **kw: object) -> Path:
    opts = RunOptions(corpus=corpus, agent=make_agent(spec), agent_spec=spec, out=out, **kw)  # type: ignore[arg-type]
    return asyncio.run(execute(opts)).store.root


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two real runs on one corpus: a replay judged by the local double, and the null agent
    under a release gate."""
    root = tmp_path_factory.mktemp("bundle")
    corpus = _corpus(root / "corpus")
    chat = ChatDouble().start()
    try:
        judge = Judge(JudgeConfig(model="grader-1", base_url=chat.base_url, max_retries=0))
        trajectory = write_reference_trajectory(root / "reference.json")
        replay = _run(corpus, f"replay:{trajectory}", root / "runs", judge=judge)
    finally:
        chat.stop()
    declared = root / "gates.yaml"  # a gated report: its verdicts are not rendered again
    declared.write_text("gates:\n  - metric: weakenings\n    max: 0\n")
    null = _run(corpus, "null", root / "runs", attempts=2, gates=gates.pin(declared))
    return {"replay": replay, "null": null}


def endstate(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "endstate", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _bundle(run_dir: Path, out: Path) -> Path:
    proc = endstate("bundle", run_dir, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


def _members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]


def _forge(path: Path, members: dict[str, bytes], run_id: str) -> None:
    """Re-pack as a careful forger would: a fresh index and a fresh detached checksum."""
    members = {k: v for k, v in members.items() if k != "index.json"}
    members["index.json"] = index_of(members, run_id)
    write_archive(path, members)


def _uncleared(state: bytes) -> bytes:
    doc = json.loads(state)
    assert doc["ehr"]["cleared_referrals"], "the replay cleared its referral"
    doc["ehr"]["cleared_referrals"] = []
    return json.dumps(doc).encode()


def test_a_bundle_rescores_to_agreement_from_itself_alone(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    replay = _bundle(runs["replay"], tmp_path / "replay.tar.gz")
    null = _bundle(runs["null"], tmp_path / "null.tar.gz")
    # Deterministic: the same run packs to the same bytes.
    again = _bundle(runs["replay"], tmp_path / "again" / "replay.tar.gz")
    assert again.read_bytes() == replay.read_bytes()
    line = checksum_path(replay).read_text()
    assert line == f"{sha256(replay.read_bytes())}  replay.tar.gz\n"
    members = _members(replay)
    index = json.loads(members["index.json"])["files"]
    assert set(index) == set(members) - {"index.json"}
    assert {"manifest.json", "records.jsonl", "report.txt"} <= set(index)
    assert {"corpus/prior_auth/pa-easy-1.json", "states/pa-easy-2/1.json"} <= set(index)
    judged = json.loads(members["judge/pa-easy-1/1.json"])["calls"]
    assert [c["index"] for c in judged] == [2] and judged[0]["votes"] == [1, 1, 1]
    assert "Existing authorization on file; no new request." in judged[0]["input"]["answer"]
    # Nothing but the bundle: moved away from the runs, the corpus and the repository.
    alone = tmp_path / "elsewhere"
    alone.mkdir()
    for archive in (replay, null):
        for path in (archive, checksum_path(archive)):
            (alone / path.name).write_bytes(path.read_bytes())
    proc = subprocess.run(
        [sys.executable, "-m", "endstate", "rescore", "replay.tar.gz"],
        capture_output=True,
        text=True,
        cwd=alone,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 records, every verdict, score and the report agree" in proc.stdout
    assert "1.000" in proc.stdout  # the replay passes
    assert "Gates: 1 of 1 passed" in _members(null)["report.txt"].decode()
    proc = endstate("rescore", alone / "null.tar.gz")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 records, every verdict, score and the report agree" in proc.stdout
    rows = [line for line in proc.stdout.splitlines() if "pa-easy-" in line]
    assert len(rows) == 2 and all("│ 2 " in row for row in rows), proc.stdout  # one per task


def test_a_moved_corpus_is_named_with_corpus_and_must_be_the_pinned_one(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    pinned = json.loads((runs["null"] / "manifest.json").read_text())["corpus"]["root"]
    moved = tmp_path / "moved"
    shutil.copytree(pinned, moved)
    default = _bundle(runs["null"], tmp_path / "a.tar.gz")
    proc = endstate("bundle", runs["null"], "--out", tmp_path / "b.tar.gz", "--corpus", moved)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "b.tar.gz").read_bytes() == default.read_bytes()
    task = moved / "prior_auth" / "pa-easy-2.json"
    task.write_text(task.read_text().replace("opened a referral", "opened any referral"))
    proc = endstate("bundle", runs["null"], "--out", tmp_path / "c.tar.gz", "--corpus", moved)
    assert proc.returncode == 1 and not (tmp_path / "c.tar.gz").exists()
    _one_error(proc, str(task), "differs from the file the run pinned")


def test_an_edited_end_state_under_the_old_checksum_is_refused_naming_the_archive(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    bundle = _bundle(runs["replay"], tmp_path / "b.tar.gz")
    old = checksum_path(bundle).read_text()
    members = _members(bundle)
    members["states/pa-easy-2/1.json"] = _uncleared(members["states/pa-easy-2/1.json"])
    _forge(bundle, members, runs["replay"].name)
    checksum_path(bundle).write_text(old)  # the published checksum stays
    proc = endstate("rescore", bundle)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "b.tar.gz.sha256" in lines[0], proc.stderr
    assert "archive SHA-256" in lines[0] and "Traceback" not in proc.stderr


def test_an_edited_member_under_the_old_index_is_refused_naming_the_member(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    bundle = _bundle(runs["replay"], tmp_path / "b.tar.gz")
    members = _members(bundle)
    members["states/pa-easy-2/1.json"] = _uncleared(members["states/pa-easy-2/1.json"])
    write_archive(bundle, members)  # the index as it was, a checksum over the new archive
    proc = endstate("rescore", bundle)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "member states/pa-easy-2/1.json: SHA-256 does not match index.json" in proc.stderr
    assert "sha256" not in proc.stderr.split("member")[0].lower()  # the archive itself is fine


def test_a_forged_end_state_with_consistent_hashes_is_caught_by_the_recomputation(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    bundle = _bundle(runs["replay"], tmp_path / "b.tar.gz")
    members = _members(bundle)
    members["states/pa-easy-2/1.json"] = _uncleared(members["states/pa-easy-2/1.json"])
    _forge(bundle, members, runs["replay"].name)
    proc = endstate("rescore", bundle)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "task 'pa-easy-2' attempt '1' check 0: recorded pass 1/1, recomputed fail" in (
        proc.stderr
    )
    assert "task 'pa-easy-1'" not in proc.stderr  # the untouched record still agrees


def test_an_edited_record_score_is_named(runs: dict[str, Path], tmp_path: Path) -> None:
    bundle = _bundle(runs["null"], tmp_path / "b.tar.gz")
    members = _members(bundle)
    lines = members["records.jsonl"].decode().splitlines()
    edited = []
    for line in lines:
        record = json.loads(line)
        if (record["task_id"], record["attempt"]) == ("pa-easy-1", "2"):
            record["score"] = 1.0
        edited.append(json.dumps(record))
    members["records.jsonl"] = ("\n".join(edited) + "\n").encode()
    _forge(bundle, members, runs["null"].name)
    proc = endstate("rescore", bundle)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    differs = [line for line in proc.stderr.splitlines() if line.startswith("differs: task")]
    assert len(differs) == 1, proc.stderr
    assert "task 'pa-easy-1' attempt '2': score: recorded 1, recomputed 0" in differs[0]


def test_an_edited_report_is_named(runs: dict[str, Path], tmp_path: Path) -> None:
    bundle = _bundle(runs["null"], tmp_path / "b.tar.gz")
    members = _members(bundle)
    report = members["report.txt"].decode()
    assert "Full-credit passes: 0/2" in report
    members["report.txt"] = report.replace("Full-credit passes: 0/2", "Full-credit passes: 2/2")
    members["report.txt"] = members["report.txt"].encode()  # type: ignore[attr-defined]
    _forge(bundle, members, runs["null"].name)
    proc = endstate("rescore", bundle)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "differs: report.txt line" in proc.stderr and "2/2" in proc.stderr
    assert "differs: task" not in proc.stderr  # every record still agrees


def test_an_edited_judge_verdict_changes_the_recomputed_score_and_is_named(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    bundle = _bundle(runs["replay"], tmp_path / "b.tar.gz")
    members = _members(bundle)
    doc = json.loads(members["judge/pa-easy-1/1.json"])
    doc["calls"][0]["votes"] = [0, 0, 1]
    members["judge/pa-easy-1/1.json"] = json.dumps(doc).encode()
    _forge(bundle, members, runs["replay"].name)
    proc = endstate("rescore", bundle)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "task 'pa-easy-1' attempt '1' check 2: recorded pass 1/1, recomputed fail" in (
        proc.stderr
    )
    assert "task 'pa-easy-1' attempt '1': score: recorded 1, recomputed 0.666667" in proc.stderr


def _one_error(proc: subprocess.CompletedProcess[str], *names: str) -> str:
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert all(name in lines[0] for name in names), lines[0]
    return lines[0]


def test_bad_input_is_one_line_naming_the_file(runs: dict[str, Path], tmp_path: Path) -> None:
    text = tmp_path / "notes.tar.gz"
    text.write_text("not an archive\n")
    checksum_path(text).write_text(f"{sha256(text.read_bytes())}  notes.tar.gz\n")
    _one_error(endstate("rescore", text), "notes.tar.gz", "not a readable bundle archive")

    bundle = _bundle(runs["null"], tmp_path / "b.tar.gz")
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(bundle.read_bytes()[: bundle.stat().st_size // 2])
    checksum_path(cut).write_text(f"{sha256(cut.read_bytes())}  cut.tar.gz\n")
    _one_error(endstate("rescore", cut), "cut.tar.gz", "not a readable bundle archive")

    members = _members(bundle)
    del members["records.jsonl"]
    _forge(bundle, members, runs["null"].name)
    _one_error(endstate("rescore", bundle), "b.tar.gz", "member records.jsonl is missing")

    bare = tmp_path / "bare.tar.gz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        info = tarfile.TarInfo("hello.txt")
        tar.addfile(info, io.BytesIO(b""))
    bare.write_bytes(raw.getvalue())
    checksum_path(bare).write_text(f"{sha256(bare.read_bytes())}  bare.tar.gz\n")
    _one_error(endstate("rescore", bare), "bare.tar.gz", "no index.json")

    checksum_path(bare).unlink()
    _one_error(endstate("rescore", bare), "bare.tar.gz.sha256", "not found")
    _one_error(endstate("rescore", tmp_path / "absent.tar.gz"), "absent.tar.gz", "not found")
    _one_error(endstate("bundle", tmp_path), str(tmp_path), "not a run directory")

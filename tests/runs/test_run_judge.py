"""`endstate run` with a judge: one that cannot be reached refuses the run before it starts;
one that answers the check and then cannot grade is loud at once, records and report are still
written, and the exit is non-zero when it graded nothing."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

from openai_double import Behaviour, ChatDouble

from .test_run_faults import ENDSTATE


def _dead_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def _run(corpus: Path, out: Path, judge_url: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *(str(ENDSTATE), "run", "--corpus", str(corpus)),
            *("--agent", "null", "--out", str(out), "--judge-model", "grader-1"),
            *("--judge-base-url", judge_url, "--judge-cache", str(cache)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_run_whose_judge_graded_nothing_exits_3_and_says_why(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    """The judge lists its models, so the run starts; then every grading call fails."""
    chat = ChatDouble(default=Behaviour(status=500)).start()
    out = tmp_path / "runs"
    try:
        proc = _run(embedded_corpus(1, rubric=True), out, chat.base_url, tmp_path / "c.sqlite")
    finally:
        chat.stop()
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "judge: judge endpoint returned HTTP 500" in proc.stderr
    assert "the judge graded none of 1 rubric checks" in " ".join(proc.stderr.split())
    (run_dir,) = list(out.iterdir())
    (record,) = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    rubric = [c for c in record["checks"] if c["type"] == "llm_judge"]
    assert rubric and all(c["outcome"] == "ungraded" for c in rubric)
    assert "Judge: 0 of 1 rubric verdicts graded" in proc.stdout
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert [c["role"] for c in manifest["endpoint_checks"]] == ["judge"]


def test_a_judge_that_cannot_be_reached_refuses_the_run_before_it_starts(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    url = _dead_endpoint()
    out = tmp_path / "runs"
    proc = _run(embedded_corpus(1, rubric=True), out, url, tmp_path / "c.sqlite")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"error: judge endpoint {url}: connection refused")
    assert "--judge-base-url" in line
    assert not out.exists() or not any(out.iterdir())  # nothing was recorded


def test_a_judge_is_not_checked_when_no_task_holds_a_rubric_check(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    """It would never be asked: the run goes ahead, and the manifest shows nothing checked."""
    out = tmp_path / "runs"
    proc = _run(embedded_corpus(1), out, _dead_endpoint(), tmp_path / "c.sqlite")
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = list(out.iterdir())
    assert json.loads((run_dir / "manifest.json").read_text())["endpoint_checks"] == []

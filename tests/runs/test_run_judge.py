"""`endstate run` with a judge that cannot grade: loud at once, records and report still
written, and a non-zero exit when it graded nothing."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

from .test_run_faults import ENDSTATE


def _dead_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_a_run_whose_judge_graded_nothing_exits_3_and_says_why(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    proc = subprocess.run(
        [
            *(str(ENDSTATE), "run", "--corpus", str(embedded_corpus(1, rubric=True))),
            *("--agent", "null", "--out", str(out), "--judge-model", "grader-1"),
            *("--judge-base-url", _dead_endpoint(), "--judge-cache", str(tmp_path / "c.sqlite")),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "judge: judge endpoint unreachable" in proc.stderr
    assert "the judge graded none of 1 rubric checks" in " ".join(proc.stderr.split())
    (run_dir,) = list(out.iterdir())
    (record,) = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    rubric = [c for c in record["checks"] if c["type"] == "llm_judge"]
    assert rubric and all(c["outcome"] == "ungraded" for c in rubric)
    assert "Judge: 0 of 1 rubric verdicts graded" in proc.stdout

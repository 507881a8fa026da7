"""`endstate corpus audit --world-seed N`: every record of a fresh world derived, no corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from endstate.envs.world import DEFAULT_CLOCK, generate_world


def _cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "endstate", "corpus", "audit", *map(str, args)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip


def test_fresh_worlds_are_audited_record_by_record(tmp_path: Path) -> None:
    report = tmp_path / "worlds.json"
    proc = _cli("--world-seed", "4242", "--world-seed", "777", "--json", report)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    made = [generate_world(seed, DEFAULT_CLOCK) for seed in (4242, 777)]
    records = sum(len(w.referrals) + len(w.denials) + len(w.dme_orders) for w in made)
    line = " ".join(proc.stdout.split())
    assert f"{records} record(s) of the world(s) of seed 4242, 777" in line
    assert line.endswith("no findings")
    data = json.loads(report.read_text())
    assert data["ok"] is True and data["seeds"] == [4242, 777] and data["records"] == records
    assert set(data["decisions"]) == {"prior_auth", "appeals_denials", "dme"}


def test_a_corpus_and_seeds_together_or_neither_are_refused_in_one_line() -> None:
    for args in (("builtin", "--world-seed", "3"), ()):
        proc = _cli(*args)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr
        assert (
            proc.stderr.strip() == "error: corpus audit: give either a corpus PATH or --world-seed"
        )
    proc = _cli("--world-seed", "3", "--clock", "soon")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "--clock 'soon'" in proc.stderr

"""Every benchmark still starts: its imports name what the code base holds today.

Benchmarks run by hand (`make bench`), not in the suite, so a module moved or renamed would
otherwise break one silently until someone next measured. `--help` imports the whole script
and stops before measuring anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).resolve().parents[1] / "benchmarks").glob("bench_*.py"))


def test_there_are_benchmarks() -> None:
    assert len(BENCHMARKS) >= 8


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.stem)
def test_a_benchmark_starts(script: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout

"""`endstate record`: a scripted session writes a trajectory that then replays to full credit."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ENDSTATE = Path(sys.executable).with_name("endstate")


def test_recorded_trajectory_keeps_only_working_actions_and_replays(
    embedded_corpus: Callable[..., Path], reference_trajectory: Path, tmp_path: Path
) -> None:
    corpus = embedded_corpus(1)
    actions = json.loads(reference_trajectory.read_text())["actions"]
    lines = [json.dumps(a) for a in actions[:2]]
    lines.append(
        json.dumps({"type": "click", "target": {"role": "button", "name": "No such button"}})
    )
    lines.append("this is not json")
    lines += [json.dumps(a) for a in actions[2:]]
    out = tmp_path / "recorded.json"
    proc = subprocess.run(
        [
            str(ENDSTATE),
            "record",
            "--corpus",
            str(corpus),
            "--task",
            "pa-easy-1",
            "--out",
            str(out),
        ],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "failed, not kept" in proc.stderr and "skipped: not JSON" in proc.stderr
    saved = json.loads(out.read_text())["actions"]
    assert [a["type"] for a in saved] == [a["type"] for a in actions]

    replay = subprocess.run(
        [
            str(ENDSTATE),
            "run",
            "--corpus",
            str(corpus),
            "--agent",
            f"replay:{out}",
            "--out",
            str(tmp_path / "runs"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert replay.returncode == 0, replay.stderr
    assert "Full-credit passes: 1/1" in replay.stdout

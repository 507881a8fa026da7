"""`endstate env` sub-commands: world, fingerprint, serve."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from typer.testing import CliRunner

from endstate.cli.env import env_app
from endstate.envs.world import generate_world


def test_world_writes_the_json_and_names_it(tmp_path: Path) -> None:
    out = tmp_path / "world.json"
    result = CliRunner().invoke(env_app, ["world", "--seed", "5", "--out", str(out)])
    assert result.exit_code == 0, result.output
    expected = generate_world(5)
    assert result.output.split() == [expected.id, expected.sha256]
    assert json.loads(out.read_text())["seed"] == 5
    assert out.read_text().rstrip("\n") == expected.canonical_json()
    bad = CliRunner().invoke(env_app, ["world", "--clock", "03/02/2026"])
    assert bad.exit_code != 0


def test_fingerprint_prints_json(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    result = CliRunner().invoke(env_app, ["fingerprint"], env=env)
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert set(body["systems"]) == {
        "ehr",
        "payer_a",
        "payer_b",
        "fax",
        "patient_portal",
        "scheduling",
    }
    assert len(body["sha256"]) == 64


def test_serve_prints_urls_and_stops_on_interrupt(tmp_path: Path) -> None:
    code = "from endstate.cli.env import env_app; env_app()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--token", "t0k", "--episode-seed", "3"],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ | {"XDG_CACHE_HOME": str(tmp_path)},
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        for line in proc.stdout:
            lines.append(line.rstrip())
            if line.startswith("Serving"):
                break
        text = "\n".join(lines)
        assert "Bearer t0k" in text and "(seed 3)" in text
        start = next(x.split()[1] for x in lines if x.startswith("  payer_b "))
        assert "/start?t=" in start
        assert httpx.get(start, follow_redirects=True).status_code == 200
        state_url = next(x.split()[1] for x in lines if x.startswith("state"))
        state = httpx.get(state_url, headers={"Authorization": "Bearer t0k"}).json()
        assert state["episode"]["seed"] == 3
        assert any(e["system"] == "payer_b" for e in state["events"])
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0  # a hang detector, not a speed limit (loaded CI)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

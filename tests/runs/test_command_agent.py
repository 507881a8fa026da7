"""The command agent: a real subprocess, a scrubbed environment, a hard time limit."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest

from endstate.agents.base import AttemptContext
from endstate.agents.command import CommandAgent, parse_final_message
from endstate.firewall import Projection

PROJECTION = Projection(
    task_id="t-1",
    instruction="Clear referral REF-1.",
    family="prior_auth",
    start_url="http://127.0.0.1:1/x",
)


def ctx(tmp_path: Path, limit: float = 20) -> AttemptContext:
    return AttemptContext(
        projection=PROJECTION,
        start_urls={"ehr": "http://127.0.0.1:1/"},
        time_limit=limit,
        trace_dir=tmp_path,
    )


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "agent.py"
    path.write_text(body)
    return f"{sys.executable} {path}"


def test_agent_receives_only_the_projection_and_reports_its_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENDSTATE_JUDGE_API_KEY", "secret-judge-key")
    monkeypatch.setenv("OPENAI_API_KEY", "secret-openai-key")
    agent = CommandAgent(
        script(
            tmp_path,
            "import json, os, sys\n"
            "data = json.load(sys.stdin)\n"
            "print('thinking...')\n"
            "print(json.dumps({'claim': 'done', 'message': json.dumps({'keys': sorted(data),"
            " 'env': sorted(os.environ), 'cwd': os.getcwd()}), 'steps': 4}))\n",
        )
    )
    outcome = asyncio.run(agent.attempt(ctx(tmp_path), None))
    assert outcome.claim == "done" and outcome.steps == 4 and outcome.error is None
    seen = json.loads(outcome.final_message or "{}")
    assert seen["keys"] == ["cdp_endpoint", "max_steps", "projection", "start_urls", "time_limit"]
    assert not any(
        "KEY" in name or "TOKEN" in name or name.startswith("ENDSTATE") for name in seen["env"]
    )
    assert "endstate-agent-" in seen["cwd"] and not Path(seen["cwd"]).exists()
    assert "thinking..." in (tmp_path / "agent.stdout.txt").read_text()


def test_a_crashing_agent_is_an_error_claim(tmp_path: Path) -> None:
    agent = CommandAgent(script(tmp_path, "raise SystemExit('boom: lost the page')\n"))
    outcome = asyncio.run(agent.attempt(ctx(tmp_path), None))
    assert outcome.claim == "error"
    assert outcome.error is not None and "status 1" in outcome.error and "boom" in outcome.error


def test_a_hanging_agent_is_killed_at_the_limit(tmp_path: Path) -> None:
    marker = tmp_path / "child-alive"
    child = tmp_path / "child.py"
    child.write_text(f"import time\ntime.sleep(3)\nopen({str(marker)!r}, 'w').close()\n")
    agent = CommandAgent(
        script(
            tmp_path,
            "import subprocess, sys, time\n"
            f"subprocess.Popen([sys.executable, {str(child)!r}])\n"
            "time.sleep(60)\n",
        )
    )
    began = time.monotonic()
    outcome = asyncio.run(agent.attempt(ctx(tmp_path, limit=1.0), None))
    assert outcome.claim == "timeout"
    assert time.monotonic() - began < 10
    time.sleep(3.5)
    assert not marker.exists(), "the agent's child process outlived the kill"


def test_missing_executable_is_an_error_claim(tmp_path: Path) -> None:
    outcome = asyncio.run(CommandAgent("/nonexistent/agent --go").attempt(ctx(tmp_path), None))
    assert outcome.claim == "error" and outcome.error and "cannot start" in outcome.error


@pytest.mark.parametrize(
    ("stdout", "claim", "message"),
    [
        ('{"claim": "gave_up", "message": "coverage inactive"}\n', "gave_up", "coverage inactive"),
        ('log line\n{"message": "ok"}\n', "done", "ok"),
        ("no json here\n", "error", None),
        ('{"claim": "victory"}\n', "error", None),
    ],
)
def test_final_message_parsing(stdout: str, claim: str, message: str | None) -> None:
    assert parse_final_message(stdout)[:2] == (claim, message)

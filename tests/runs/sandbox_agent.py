"""One attempt of a small program as a command agent in a real sandbox, as a run makes it."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from endstate.agents.base import AgentOutcome, AttemptContext, RunResources
from endstate.agents.command import CommandAgent
from endstate.firewall import Projection
from endstate.sandbox.platform import probe
from endstate.sandbox.policy import SandboxLimits

requires_sandbox = pytest.mark.skipif(
    not probe().available and not os.environ.get("ENDSTATE_REQUIRE_SANDBOX"),
    reason=f"no sandbox on this machine: {probe().reason}",
)
PORT = 18_099  # nothing listens there: the attempt only needs a route
HEADER = "import json, os, sys\ntask = json.loads(sys.stdin.readline())\n"


def run_agent(
    command: str,
    tmp_path: Path,
    hardened: bool = True,
    limits: SandboxLimits | None = None,
    browser: bool = False,
    time_limit: float = 60,
    instruction: str = "x",
) -> tuple[AgentOutcome, CommandAgent]:
    agent = CommandAgent(command, browser=browser, limits=limits, hardened=hardened)
    trace = tmp_path / "trace"
    trace.mkdir(parents=True, exist_ok=True)
    ctx = AttemptContext(
        projection=Projection(
            task_id="t-1",
            instruction=instruction,
            family="prior_auth",
            start_url=f"http://127.0.0.1:{PORT}/",
        ),
        start_urls={"ehr": f"http://127.0.0.1:{PORT}/start"},
        time_limit=time_limit,
        trace_dir=trace,
    )

    async def go() -> AgentOutcome:
        await agent.start(RunResources(agent_urls=[f"http://127.0.0.1:{PORT}"], attempts=1))
        try:
            return await agent.attempt(ctx, None)
        finally:
            await agent.stop()

    return asyncio.run(go()), agent


def run_script(body: str, tmp_path: Path, **kwargs: Any) -> dict[str, Any]:
    """`body` after HEADER, ending in `print(json.dumps({'claim': ..., 'message': json.dumps(out)}))`:
    the decoded `out`, with the attempt's sandbox facts under "_facts"."""
    folder = tmp_path / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "agent.py"
    path.write_text(HEADER + body)
    return decode(run_agent(f"{sys.executable} {path}", tmp_path, **kwargs)[0])


def run_file(
    source: Path, tmp_path: Path, files: dict[str, str] | None = None, **kwargs: Any
) -> dict[str, Any]:
    """A program of the test suite, copied where the sandbox may see it, with `files` beside."""
    folder = tmp_path / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, folder / source.name)
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    command = f"{sys.executable} {folder / source.name}"
    return decode(run_agent(command, tmp_path, **kwargs)[0])


def decode(outcome: AgentOutcome) -> dict[str, Any]:
    assert outcome.final_message is not None, outcome
    data: dict[str, Any] = json.loads(outcome.final_message)
    data["_facts"] = outcome.sandbox
    return data

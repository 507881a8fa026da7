"""Any executable as the system under test.

It gets one JSON object on stdin (projection, start URLs, CDP endpoint of the harness
browser), runs in a fresh temporary directory with a scrubbed environment (no harness tokens,
no judge keys), and prints a final JSON message on stdout. It is killed at the time limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import signal
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from endstate.agents.base import AgentClaim, AgentOutcome, AttemptContext
from endstate.errors import EndstateError

if TYPE_CHECKING:
    from playwright.async_api import Page

PASSED_THROUGH = ("PATH", "LANG", "LC_ALL", "TZ")
CLAIMS: tuple[AgentClaim, ...] = ("done", "gave_up", "error")


def agent_input(ctx: AttemptContext) -> dict[str, Any]:
    """Exactly what the command receives on stdin."""
    return {
        "projection": ctx.projection.model_dump(),
        "start_urls": ctx.start_urls,
        "cdp_endpoint": ctx.cdp_endpoint,
        "max_steps": ctx.max_steps,
        "time_limit": ctx.time_limit,
    }


def parse_final_message(stdout: str) -> tuple[AgentClaim, str | None, int]:
    """The last JSON object line on stdout: {"claim": ..., "message": ..., "steps": ...}."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            claim = data.get("claim", "done")
            steps = data.get("steps", 0)
            message = data.get("message")
            return (
                claim if claim in CLAIMS else "error",
                message if isinstance(message, str) or message is None else json.dumps(message),
                steps if isinstance(steps, int) else 0,
            )
    return "error", None, 0


class CommandAgent:
    kind = "command"
    scored = True
    uses_page = False

    def __init__(self, command: str, pass_env: tuple[str, ...] = ()) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise EndstateError("command agent: empty command")
        self.name = command
        self.pass_env = pass_env

    def config(self) -> dict[str, Any]:
        return {"command": self.argv, "pass_env": list(self.pass_env)}

    def environment(self, workdir: Path) -> dict[str, str]:
        env = {k: os.environ[k] for k in (*PASSED_THROUGH, *self.pass_env) if k in os.environ}
        env.update(HOME=str(workdir), TMPDIR=str(workdir))
        return env

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        with tempfile.TemporaryDirectory(prefix="endstate-agent-") as tmp:
            workdir = Path(tmp)
            try:
                proc = await asyncio.create_subprocess_exec(
                    *self.argv,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    cwd=workdir,
                    env=self.environment(workdir),
                    start_new_session=True,
                )
            except OSError as exc:
                return AgentOutcome(claim="error", error=f"cannot start {self.argv[0]}: {exc}")
            payload = json.dumps(agent_input(ctx)).encode()
            try:
                stdout, stderr = await asyncio.wait_for(
                    proc.communicate(payload), timeout=ctx.time_limit
                )
            except (TimeoutError, asyncio.CancelledError) as exc:
                _kill_group(proc)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(proc.wait(), timeout=5)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                return AgentOutcome(
                    claim="timeout", error=f"killed after {ctx.time_limit:g}s wall-clock limit"
                )
            if ctx.trace_dir:
                (ctx.trace_dir / "agent.stderr.txt").write_bytes(stderr[-1_000_000:])
                (ctx.trace_dir / "agent.stdout.txt").write_bytes(stdout[-1_000_000:])
            claim, message, steps = parse_final_message(stdout.decode(errors="replace"))
            error = None
            if proc.returncode != 0:
                claim = "error"
                tail = stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
                error = f"exited with status {proc.returncode}: {tail[0][:200]}"
            elif message is None and claim == "error":
                error = "no final JSON message on stdout"
            return AgentOutcome(claim=claim, final_message=message, steps=steps, error=error)


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)

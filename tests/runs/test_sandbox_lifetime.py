"""A sandbox never outlives the harness that started it, even one killed while it starts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from endstate.sandbox.spec import QUOTA_MOUNTS

from .sandbox_agent import PORT, requires_sandbox
from .sandbox_processes import Sandboxes, children, cmdline, running

# A harness that makes a run's sandbox spec, says "go", then starts one sandbox by hand.
STARTS_ONE = f"""\
import asyncio, sys
from endstate.agents.base import RunResources
from endstate.agents.command import CommandAgent
from endstate.sandbox.launch import Sandbox

async def go():
    agent = CommandAgent(f"{{sys.executable}} -c pass", browser=False)
    await agent.start(RunResources(agent_urls=["http://127.0.0.1:{PORT}"], attempts=1))
    await agent.stop()  # only its spec is wanted
    print("go", flush=True)
    await Sandbox(agent._spec).launch()

asyncio.run(go())
"""


def _sandbox_start(harness: int, limit: float = 30) -> int:
    """The harness's child that starts the sandbox, caught as early as it can be."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        for child in children(harness):
            line = cmdline(child)
            if QUOTA_MOUNTS.name in line or "bwrap" in line:
                return child
        time.sleep(0.0005)
    raise AssertionError("the harness started no sandbox")


@requires_sandbox
@pytest.mark.parametrize("delay", [0.0, 0.005, 0.01, 0.02, 0.03, 0.05])
def test_a_harness_killed_while_its_sandbox_starts_leaves_nothing_running(delay: float) -> None:
    """A harness killed while bubblewrap starts used to leave bubblewrap's inner process
    waiting for ever, in a PID namespace of its own (its outer one was gone before it said
    go): the sandbox's keeper must end it."""
    harness = subprocess.Popen(
        [sys.executable, "-c", STARTS_ONE],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        assert harness.stdout is not None and harness.stdout.readline() == "go\n"
        _sandbox_start(harness.pid)
        time.sleep(delay)
    finally:
        sandboxes = Sandboxes.of(harness.pid)
        os.killpg(harness.pid, signal.SIGKILL)
        harness.wait()
    deadline = time.monotonic() + 10
    while sandboxes.left() and time.monotonic() < deadline:
        time.sleep(0.05)
    left = sandboxes.left()
    lines = [cmdline(p)[:100] for p in left]
    for pid in left:  # leave nothing behind for the next test, then fail
        os.kill(pid, signal.SIGKILL)
    assert not left, f"still running after its harness was killed: {lines}"


def _keeper(parent: int, command: list[str]) -> subprocess.CompletedProcess[str]:
    plan = {"parent": parent, "user": os.geteuid() != 0, "mounts": []}
    return subprocess.run(
        [sys.executable, "-I", "-S", str(QUOTA_MOUNTS), json.dumps(plan), "--", *command],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip


@requires_sandbox  # a harness that is not root needs a user namespace, as its sandboxes do
def test_the_keeper_passes_its_command_through_and_ends_what_the_command_left() -> None:
    """Its command's output and status are the caller's; a process the command left running
    (as bubblewrap's orphan would be) is killed when the command ends, so the caller's pipes
    close then (left alone, the sleep would hold them past the call's time limit)."""
    done = _keeper(os.getpid(), ["/bin/sh", "-c", "sleep 300 & echo $!; echo said >&2; exit 3"])
    assert done.returncode == 3 and done.stderr == "said\n"
    assert not running(int(done.stdout))


def test_the_keeper_starts_nothing_for_a_harness_already_gone(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    gone = _keeper(1, ["/usr/bin/touch", str(marker)])  # its parent is not pid 1: it is gone
    assert gone.returncode == 71 and not marker.exists()
    assert gone.stderr.strip().endswith("the harness (pid 1) is gone"), gone.stderr

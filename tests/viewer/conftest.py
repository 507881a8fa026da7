"""A real run to view: the replay agent on a tiny embedded corpus, then the viewer serving it.

The run is made once per session by the runner itself (two tasks, two attempts each): one
task replays its reference trajectory (passed), the other stops early and claims success
with agent-controlled markup in its message (failed), and the last attempt's record is
removed as if the run had been stopped there (not recorded). One attempt then gets what a
computer-use agent leaves: screens `screens/step-NNNN.png` and the model's words.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.browser_harness import Browser
from endstate.agents.registry import make_agent
from endstate.runs.session import RunOptions, execute
from runs.conftest import clear_task, referral_id

ROOT = Path(__file__).resolve().parents[2]
ODD_TASK = "pa:easy+2@x"  # every character a URL must quote
HOSTILE = '<script>window.__pwned = 1; alert("x")</script><img src=x onerror="window.__pwned=2">'
THOUGHT = "The referral comes first. <script>window.__pwned = 3</script>"
SCREEN_WIDTHS = {0: 40, 1: 41, 2: 42}  # a different width per screen: which one loaded shows


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A valid RGB PNG of one colour."""
    rows = b"".join(b"\0" + bytes(rgb) * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _trajectories(folder: Path) -> Path:
    ref = referral_id()
    solve = [
        {"type": "goto", "url": f"/referrals/{ref}"},
        {"type": "click", "target": {"role": "tab", "name": "Communications"}},
        {"type": "fill", "target": {"label": "Subject"}, "value": "Prior auth determination"},
        {
            "type": "select",
            "target": {"role": "button", "name": "Category"},
            "option": "Authorization determination",
        },
        {"type": "fill", "target": {"label": "Note"}, "value": "Existing authorization on file."},
        {"type": "click", "target": {"role": "button", "name": "Save note"}},
        {"type": "click", "target": {"role": "button", "name": "Clear from worklist"}},
        {"type": "done", "message": "Documented and cleared."},
    ]
    folder.mkdir()
    (folder / "pa-easy-1.json").write_text(json.dumps({"version": 1, "actions": solve}))
    stop_early = [solve[0], {"type": "done", "message": HOSTILE}]
    (folder / f"{ODD_TASK}.json").write_text(json.dumps({"version": 1, "actions": stop_early}))
    return folder


@pytest.fixture(scope="session")
def viewed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("viewed")
    corpus = base / "corpus" / "prior_auth"
    corpus.mkdir(parents=True)
    for i, task_id in enumerate(("pa-easy-1", ODD_TASK), start=1):
        doc = clear_task(task_id, referral_id())
        (corpus / f"task-{i}.json").write_text(json.dumps(doc))
    spec = f"replay:{_trajectories(base / 'trajectories')}"
    opts = RunOptions(
        corpus=corpus.parent,
        agent=make_agent(spec),
        agent_spec=spec,
        out=base / "runs",
        attempts=2,
        workers=2,
    )
    root = asyncio.run(execute(opts)).store.root
    lines = (root / "records.jsonl").read_text().splitlines(keepends=True)
    kept = [
        x for x in lines if (json.loads(x)["task_id"], json.loads(x)["attempt"]) != (ODD_TASK, "2")
    ]
    (root / "records.jsonl").write_text("".join(kept))  # stopped before this attempt recorded
    shutil.rmtree(root / "traces" / ODD_TASK / "2")
    trace = root / "traces" / "pa-easy-1" / "1"
    (trace / "screens").mkdir()
    for step, width in SCREEN_WIDTHS.items():
        (trace / "screens" / f"step-{step:04d}.png").write_bytes(png(width, 30, (20, 90, 200)))
    actions = json.loads((trace / "actions.json").read_text())
    actions[0]["thought"] = THOUGHT
    (trace / "actions.json").write_text(json.dumps(actions))
    return root


def view_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "endstate", "view", *args]


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    return env


class Viewer:
    """`endstate view RUN --no-open --port 0` as a child process; `url` is what it printed."""

    def __init__(self, run: Path) -> None:
        self.proc = subprocess.Popen(
            view_command(str(run), "--no-open", "--port", "0"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(),
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        if found is None:
            self.stop()
            raise AssertionError(f"viewer did not start: {line!r} {self.proc.stderr.read()!r}")  # type: ignore[union-attr]
        self.url = found.group(0)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="session")
def viewer(viewed_run: Path) -> Iterator[Viewer]:
    served = Viewer(viewed_run)
    yield served
    served.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    b = Browser()
    yield b
    b.close()

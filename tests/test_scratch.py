"""Scratch folders: a process's folders go when the process goes, however it goes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from endstate.scratch import LOCK_NAME, ROOT_PREFIX, process_root, scratch, sweep

MAKER = """
import sys, tempfile
tempfile.tempdir = sys.argv[1]
from endstate.scratch import scratch
folder = scratch("endstate-test-")
(folder / "episode.sqlite").write_bytes(b"x" * 1000)
print(folder, flush=True)
{tail}
"""


def _spawn(tmp: Path, tail: str) -> tuple[subprocess.Popen[str], Path]:
    proc = subprocess.Popen(
        [sys.executable, "-c", MAKER.format(tail=tail), str(tmp)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def test_a_killed_process_leaves_its_root_and_the_next_sweep_removes_it(tmp_path: Path) -> None:
    proc, folder = _spawn(tmp_path, "import time; time.sleep(60)")
    root = folder.parent
    assert root.name.startswith(f"{ROOT_PREFIX}{proc.pid}-")
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    assert oct(root.stat().st_mode & 0o777) == "0o755"
    try:
        assert sweep(tmp_path) == []  # alive: its lock is held
        assert folder.exists()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert folder.exists()  # nothing of its own clean-up ran
    assert sweep(tmp_path) == [root]
    assert not root.exists()


def test_a_process_that_exits_cleanly_removes_its_own_root(tmp_path: Path) -> None:
    proc, folder = _spawn(tmp_path, "")
    assert proc.wait() == 0
    assert not folder.parent.exists()
    assert list(tmp_path.iterdir()) == []


def test_a_root_of_another_user_or_too_young_to_judge_is_left_alone(tmp_path: Path) -> None:
    foreign = tmp_path / f"{ROOT_PREFIX}1-foreign"
    foreign.mkdir()
    (foreign / LOCK_NAME).touch()
    young = tmp_path / f"{ROOT_PREFIX}2-young"
    young.mkdir()  # made, its lock not yet taken
    old = tmp_path / f"{ROOT_PREFIX}3-old"
    old.mkdir()
    os.utime(old, (time.time() - 600, time.time() - 600))
    not_a_root = tmp_path / "endstate-episodes-x"
    not_a_root.mkdir()
    if os.getuid() == 0:
        os.chown(foreign, 65534, 65534)
        expected = [old]
    else:
        expected = [foreign, old]  # an unprivileged test cannot make another user's folder
    assert sorted(sweep(tmp_path)) == sorted(expected)
    assert young.exists() and not_a_root.exists()


def test_a_symlink_named_like_a_root_is_never_followed(tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.mkdir()
    (target / "data").write_text("keep")
    (tmp_path / f"{ROOT_PREFIX}4-link").symlink_to(target)
    assert sweep(tmp_path) == []
    assert (target / "data").read_text() == "keep"


def test_this_process_never_sweeps_its_own_root() -> None:
    folder = scratch("endstate-test-")
    try:
        assert process_root() == folder.parent
        assert folder.parent not in sweep(folder.parent.parent)
        assert folder.exists()
    finally:
        folder.rmdir()


def test_processes_starting_and_sweeping_at_once_never_remove_a_live_folder(
    tmp_path: Path,
) -> None:
    keeper = """
import time
from endstate.scratch import scratch, sweep
for _ in range(40):  # each new folder races the other processes' sweeps
    folder = scratch("endstate-test-")
    for _ in range(5):
        sweep()
        assert folder.is_dir(), folder
    time.sleep(0.001)
print("kept", flush=True)
"""
    env = dict(os.environ, TMPDIR=str(tmp_path))
    procs = [
        subprocess.Popen([sys.executable, "-c", keeper], stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(6)
    ]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * 6
    assert outputs == ["kept\n"] * 6
    assert list(tmp_path.iterdir()) == []  # and each removed its own at exit

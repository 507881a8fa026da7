"""Scratch folders that outlive no process.

Every temporary folder an endstate process makes (episode databases, sandbox staging, gateway
sockets, a Ray worker's home) lives under one root named for that process. The process holds
an exclusive `flock` on a file in its root for as long as it lives; the kernel drops the lock
when the process dies, however it dies. So when a process is killed (SIGKILL, a lost Ray
worker, a machine's OOM killer) and its own clean-up never runs, the next endstate process to
make a scratch folder finds the root unlocked and removes it. A lock, not a pid: pids are
reused and differ between containers that share one /tmp.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

ROOT_PREFIX = "endstate-proc-"
LOCK_NAME = ".alive"

_lock = threading.Lock()
_root: tuple[int, Path, IO[bytes]] | None = None  # (pid, root, its held lock file)


def process_root() -> Path:
    """This process's root (made, locked and registered on first use; a forked child gets a
    root of its own). Making it first sweeps away the roots of processes that are gone."""
    global _root
    with _lock:
        if _root is not None and _root[0] == os.getpid():
            return _root[1]
        sweep()
        root = Path(tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{os.getpid()}-"))
        root.chmod(0o755)  # folders inside keep their own modes; sandboxes must traverse it
        # Locked before it takes its name, so no sweep ever sees it unlocked.
        alive = (root / f"{LOCK_NAME}.new").open("wb")
        with contextlib.suppress(OSError):  # no locks here (some network file systems):
            fcntl.flock(alive, fcntl.LOCK_EX | fcntl.LOCK_NB)  # sweeps then leave it alone
        os.rename(root / f"{LOCK_NAME}.new", root / LOCK_NAME)
        _root = (os.getpid(), root, alive)
        atexit.register(release)
        return root


def scratch(prefix: str) -> Path:
    """A new private folder (mode 0700) under this process's root."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=process_root()))


def sweep(tmp: Path | None = None) -> list[Path]:
    """Remove the roots, in `tmp` (default: the system's temporary folder), of this user's
    processes that are gone; those of live processes and of other users are left alone."""
    folder = Path(tmp or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        names = [n for n in os.listdir(folder) if n.startswith(ROOT_PREFIX)]
    except OSError:
        return removed
    for name in names:
        root = folder / name
        if _abandoned(root):
            shutil.rmtree(root, ignore_errors=True)
            removed.append(root)
    return removed


def _abandoned(root: Path) -> bool:
    try:
        info = root.lstat()
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return False
    try:
        fd = os.open(root / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        # A root is made before its lock: give a root that young the benefit of the doubt.
        return _age(info) > 60
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # its process (this one too) holds the lock: alive
    finally:
        os.close(fd)  # closing drops the lock this probe may have taken
    return True


def _age(info: os.stat_result) -> float:
    return time.time() - info.st_mtime


def release() -> None:
    """Remove this process's root now (at a clean exit, after every component cleaned up)."""
    global _root
    with _lock:
        if _root is None or _root[0] != os.getpid():
            return
        _, root, alive = _root
        _root = None
        with contextlib.suppress(OSError):
            alive.close()
        shutil.rmtree(root, ignore_errors=True)

"""Can this machine sandbox an agent? Asked once per process, answered with a reason.

The sandbox is bubblewrap. Run by root, bubblewrap builds the namespaces and the agent is then
dropped to a dedicated unprivileged uid (`setpriv`); run by an ordinary user, bubblewrap uses
an unprivileged user namespace and the agent keeps that user's uid. Either way the probe runs
a real sandbox — with its inode-quota scratch space, made the way every sandbox's is — and
confines a real process the way every agent is, so "available" means both were done here.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# As spec.CONFINE and spec.QUOTA_MOUNTS (spec imports this module).
CONFINE = Path(__file__).with_name("confine.py")
QUOTA_MOUNTS = Path(__file__).with_name("quota_mounts.py")

BWRAP_ENV = "ENDSTATE_BWRAP"
Mount = list[str | int]  # [folder, bytes, inodes, mode]


def keeper_argv(user: bool, mounts: list[Mount], ptys: Mount | None) -> list[str]:
    """The prefix that runs bubblewrap under `quota_mounts.py`: the writable file systems
    with their quotas, and the keeper that ends the sandbox with this process (its parent)."""
    plan = {"parent": os.getpid(), "user": user, "mounts": mounts, "ptys": ptys}
    return [sys.executable, "-I", "-S", str(QUOTA_MOUNTS), json.dumps(plan), "--"]


INSTALL_HINT = "install Debian's bubblewrap package (apt-get install bubblewrap)"


@dataclass(frozen=True)
class SandboxSupport:
    available: bool
    reason: str = ""
    bwrap: str = ""
    version: str = ""
    privileged: bool = False  # the harness is root: agents get their own unprivileged uid
    setpriv: str = ""
    landlock: int | None = None  # the Landlock ABI agents' domains get; None: no Landlock


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


@functools.lru_cache(maxsize=1)
def probe() -> SandboxSupport:
    """Find bubblewrap and make one throwaway sandbox with every namespace the agent gets."""
    bwrap = os.environ.get(BWRAP_ENV) or shutil.which("bwrap") or ""
    if not bwrap:
        return SandboxSupport(False, f"bubblewrap (bwrap) not found: {INSTALL_HINT}")
    privileged = os.geteuid() == 0
    setpriv = shutil.which("setpriv") or ""
    if privileged and not setpriv:
        return SandboxSupport(False, "setpriv (util-linux) not found", bwrap)
    try:
        version = _first_line(
            subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10).stdout
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return SandboxSupport(False, f"{bwrap}: {exc}", bwrap)
    with tempfile.TemporaryDirectory(prefix="endstate-probe-") as root:
        scratch, ptys = Path(root, "scratch"), Path(root, "pts")
        scratch.mkdir()
        ptys.mkdir()
        mounts: list[Mount] = [[str(scratch), 1 << 20, 64, "1777"]]
        argv = [*keeper_argv(not privileged, mounts, [str(ptys), 4]), bwrap]
        if not privileged:
            argv += ["--unshare-user"]
        argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
        argv += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
        argv += ["--dev-bind", str(ptys), "/dev/pts", "--bind", str(scratch), "/tmp", "--"]
        if privileged:
            argv += [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--no-new-privs"]
        argv += ["touch", "/tmp/probe"]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError) as exc:
            return SandboxSupport(False, f"{bwrap}: {exc}", bwrap, version, privileged, setpriv)
        leaked = Path(scratch, "probe").exists()  # the scratch tmpfs must stay in its namespace
    if done.returncode != 0 or leaked:
        why = _first_line(done.stderr) or f"exit status {done.returncode}"
        if leaked:
            why = "the sandbox's scratch space showed on the host"
        return SandboxSupport(
            False, f"bubblewrap cannot make a sandbox here: {why}", bwrap, version, privileged
        )
    landlock, why = _confine_check()
    if why:
        return SandboxSupport(False, why, bwrap, version, privileged, setpriv)
    return SandboxSupport(True, "", bwrap, version, privileged, setpriv, landlock)


def _confine_check() -> tuple[int | None, str]:
    """The Landlock ABI a confined agent gets (None: no Landlock), or why an agent cannot
    be confined here."""
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(CONFINE), "--check"],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode != 0:
            return None, _first_line(done.stderr) or f"confine.py: exit status {done.returncode}"
        landlock = json.loads(done.stdout)["landlock"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError) as exc:
        return None, f"cannot confine an agent here: {exc}"
    return (landlock if isinstance(landlock, int) else None), ""

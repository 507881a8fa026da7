"""Can this machine sandbox an agent? Asked once per process, answered with a reason.

The sandbox is bubblewrap. Run by root, bubblewrap builds the namespaces and the agent is then
dropped to a dedicated unprivileged uid (`setpriv`); run by an ordinary user, bubblewrap uses
an unprivileged user namespace and the agent keeps that user's uid. Either way the probe runs
a real sandbox, so "available" means a sandbox was actually made here.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass

BWRAP_ENV = "ENDSTATE_BWRAP"
INSTALL_HINT = "install Debian's bubblewrap package (apt-get install bubblewrap)"


@dataclass(frozen=True)
class SandboxSupport:
    available: bool
    reason: str = ""
    bwrap: str = ""
    version: str = ""
    privileged: bool = False  # the harness is root: agents get their own unprivileged uid
    setpriv: str = ""


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
    argv = [bwrap]
    if not privileged:
        argv += ["--unshare-user"]
    argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    argv += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--"]
    if privileged:
        argv += [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--no-new-privs"]
    argv += ["true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        return SandboxSupport(False, f"{bwrap}: {exc}", bwrap, version, privileged, setpriv)
    if done.returncode != 0:
        why = _first_line(done.stderr) or f"exit status {done.returncode}"
        return SandboxSupport(
            False, f"bubblewrap cannot make a sandbox here: {why}", bwrap, version, privileged
        )
    return SandboxSupport(True, "", bwrap, version, privileged, setpriv)

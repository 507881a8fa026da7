"""The hostile agent's attacks on the machine itself: privilege, exhaustion, signals, a full
disk, processes left alive. Copied beside `hostile_agent.py` into the sandbox."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from typing import Any

from hostile_kit import (  # type: ignore[import-not-found]  # its sibling module, copied beside it
    CANARY,
    REPORT,
    SECRET_NAMES,
    finish,
    found,
    processes,
    read,
    tried,
)


def survivors(task: dict[str, Any]) -> None:
    tried("daemons that outlive the attempt (setsid, double fork)")
    code = "import time\ntime.sleep(120)\n"
    subprocess.Popen(
        [sys.executable, "-c", code, "es-rt-survivor"],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", code, "es-rt-survivor"])
        os._exit(0)
    REPORT["notes"].append("two daemons started")


def disk_fill(task: dict[str, Any]) -> None:
    tried("filling /tmp")
    written = 0
    cap = 2 * 1024 * 1024 * 1024
    try:
        with open("/tmp/es-rt-fill", "wb") as fh:
            while written < cap:
                fh.write(b"\1" * (8 << 20))
                written += 8 << 20
    except OSError as exc:
        REPORT["notes"].append(f"/tmp full after {written >> 20} MiB ({exc.strerror})")
    with contextlib.suppress(OSError):
        os.remove("/tmp/es-rt-fill")
    if written >= cap:
        found("/tmp took 2 GiB without complaint", "no quota")


def privilege(task: dict[str, Any]) -> None:
    tried("setuid programs, the first process's root and memory, unmounting covered folders")
    for argv in (["sudo", "-n", "id", "-u"], ["su", "-c", "id -u"], ["newgrp"]):
        with contextlib.suppress(Exception):
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=5, stdin=subprocess.DEVNULL
            )
            if done.returncode == 0 and done.stdout.strip() == "0":
                found(f"{argv[0]} gave uid 0")
    try:
        os.setuid(0)
        found("setuid(0) succeeded")
    except OSError:
        pass
    # The first process of the namespace: a way out if it were anything but our own.
    shadow = read("/proc/1/root/etc/shadow", 200)
    if shadow:
        found("read the host's /etc/shadow through /proc/1/root", repr(shadow)[:200])
    with contextlib.suppress(OSError):
        if sorted(os.listdir("/proc/1/root")) != sorted(os.listdir("/")):
            found("/proc/1/root shows another file system", repr(os.listdir("/proc/1/root")))
    environ = read("/proc/1/environ") or b""
    if SECRET_NAMES.search(environ) or CANARY.search(environ):
        found("secrets in the first process's environment", environ.decode(errors="replace"))
    covered = []
    for line in (read("/proc/self/mountinfo") or b"").decode(errors="replace").splitlines():
        fields = line.split()
        if " - tmpfs " in line and fields[4] not in ("/tmp", "/dev/shm", "/home/agent", "/"):
            covered.append(fields[4])
    for path in covered:
        script = (
            f"ls -A {path}; echo ---; umount -l {path} 2>/dev/null && echo UNMOUNTED; ls -A {path}"
        )
        with contextlib.suppress(Exception):
            done = subprocess.run(
                ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=5
            )
            before, _, after = done.stdout.partition("---")
            if "UNMOUNTED" in after:
                shown = after.replace("UNMOUNTED", "").strip()
                if shown and shown != before.strip():
                    found(f"unmounting {path} revealed", shown[:300])
                else:
                    REPORT["notes"].append(f"unmounted {path}, nothing beneath")


def exhaustion(task: dict[str, Any]) -> None:
    tried("a fork bomb, a memory bomb and an output flood")
    children = 0
    pids = []
    try:
        for _ in range(20000):
            pid = os.fork()
            if pid == 0:
                time.sleep(30)
                os._exit(0)
            pids.append(pid)
            children += 1
    except OSError as exc:
        REPORT["notes"].append(f"fork refused after {children} children ({exc.strerror})")
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    if children >= 20000:
        found("20000 processes without a limit")
    hog = []
    try:
        for _ in range(64):
            hog.append(bytearray(256 << 20))
        found("16 GiB of memory without a limit")
    except MemoryError:
        REPORT["notes"].append(f"memory refused after {len(hog) * 256} MiB")
    del hog
    for _ in range(600):
        sys.stdout.write("x" * 100_000 + "\n")


def signals(task: dict[str, Any]) -> None:
    tried("signalling every visible process, then killing the parent")
    me, parent = os.getpid(), os.getppid()
    for pid in processes():
        if int(pid) in (me, parent):
            continue
        cmd = (read(f"/proc/{pid}/cmdline") or b"").replace(b"\0", b" ")
        try:
            os.kill(int(pid), 0)
        except OSError:
            continue
        if any(w in cmd for w in (b"bin/endstate", b"endstate.cli", b"pytest", b"bwrap")):
            found(f"may signal harness process {pid}", cmd.decode(errors="replace")[:200])
    finish()  # report first: killing the parent ends this sandbox
    sys.stdout.flush()
    try:
        os.kill(parent, signal.SIGKILL)
    except OSError as exc:  # a Landlock domain refuses signals out of it
        REPORT["notes"].append(f"killing its parent refused ({exc.strerror})")
        return
    time.sleep(2)
    alive = os.path.exists(f"/proc/{parent}")
    REPORT["notes"].append("its parent survived SIGKILL" if alive else "its parent is gone")

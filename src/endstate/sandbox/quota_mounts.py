"""Runs just before bubblewrap: the sandbox's writable file systems, with an inode quota.

bubblewrap's own tmpfs takes a byte size only, and a tmpfs's default inode count is half the
machine's memory pages: empty files cost no bytes of the quota but a kilobyte of kernel
memory each (400,000 of them, 400 MB of the host's). So this program, run by the harness as
`python -I -S quota_mounts.py SPEC -- BWRAP ARGS...`, enters a mount namespace of its own
(for a harness that is not root, inside a user namespace of its own, where it may mount),
makes every mount private, mounts one tmpfs per writable path with `size=` and
`nr_inodes=`, and execs bubblewrap, which binds them into the sandbox. The mounts exist only
in that namespace: they go with bubblewrap and the sandbox, and the host's mount table
never shows them.

It also mounts the sandbox's own pseudo-terminals: a devpts instance with `max=`, bound over
the sandbox's `/dev/pts`, since the kernel's ptys are one pool for the whole machine.

It then stays, as the sandbox's keeper: bubblewrap runs as its child, and it ends the sandbox
when the harness goes, however it goes. bubblewrap alone does not: a harness killed while
bubblewrap starts can kill bubblewrap's outer process (by its --die-with-parent, or by the
broken pipe of its --info-fd) before it releases its inner one, which then waits for ever for
a word that never comes, in a PID namespace of its own that nothing else would end. The
keeper is told of the harness's death by the kernel (SIGTERM, as its parent-death signal),
is the child subreaper of everything bubblewrap starts (so such an orphan becomes its child),
kills what is left, and exits with bubblewrap's status once nothing is left.

SPEC is JSON: {"parent": the harness's pid, "user": bool, "mounts": [[folder, bytes, inodes,
mode], ...], "ptys": [folder, max] (optional)}. Standard library only; a failure is one line
on stderr and exit status 71, before bubblewrap runs.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
WATCHED = {signal.SIGCHLD, signal.SIGTERM}  # taken with sigwaitinfo, never by a handler
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 0x40000
EXIT_FAILED = 71  # EX_OSERR


def _failed(what: str) -> OSError:
    """The last call's errno, with its words and what failed: "[Errno 1] ...: 'what'"."""
    number = ctypes.get_errno()
    return OSError(number, os.strerror(number), what)


def _check(result: int, what: str) -> None:
    if result != 0:
        raise _failed(what)


def _write(path: str, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


def stay_with(parent: int) -> None:
    """SIGTERM when the harness goes (and nothing starts if it has gone already)."""
    libc = ctypes.CDLL(None, use_errno=True)
    signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED)
    _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0), "parent-death signal")
    _check(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "child subreaper")
    if os.getppid() != parent:
        raise OSError(f"the harness (pid {parent}) is gone")


def enter(user: bool) -> None:
    """A mount namespace of our own (and a user namespace first, unless we are root)."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    _check(libc.unshare(ctypes.c_int(CLONE_NEWNS | (CLONE_NEWUSER if user else 0))), "unshare")
    if user:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"0 {uid} 1")
        _write("/proc/self/gid_map", f"0 {gid} 1")
    # Private before anything is mounted: nothing made here may propagate to the host.
    _check(
        libc.mount(b"none", b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None),
        "making the mounts private",
    )


def mount_tmpfs(folder: str, size: int, inodes: int, mode: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    options = f"size={size},nr_inodes={inodes},mode={mode}".encode()
    flags = ctypes.c_ulong(MS_NOSUID | MS_NODEV)
    _check(libc.mount(b"tmpfs", folder.encode(), b"tmpfs", flags, options), f"tmpfs on {folder}")


def mount_ptys(folder: str, most: int) -> None:
    """A devpts instance of the sandbox's own: at most `most` ptys, each its opener's only."""
    libc = ctypes.CDLL(None, use_errno=True)
    options = f"newinstance,ptmxmode=0666,mode=0600,max={most}".encode()
    flags = ctypes.c_ulong(MS_NOSUID | MS_NOEXEC)
    _check(libc.mount(b"devpts", folder.encode(), b"devpts", flags, options), f"devpts on {folder}")


def main(argv: list[str]) -> int:
    try:
        spec = json.loads(argv[0])
        command = argv[argv.index("--") + 1 :]
        stay_with(int(spec["parent"]))
        enter(bool(spec["user"]))
        for folder, size, inodes, mode in spec["mounts"]:
            mount_tmpfs(str(folder), int(size), int(inodes), str(mode))
        if spec.get("ptys"):
            folder, most = spec["ptys"]
            mount_ptys(str(folder), int(most))
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        sys.stderr.write(f"endstate sandbox: cannot make the sandbox's scratch space: {exc}\n")
        return EXIT_FAILED
    try:
        child = os.fork()
    except OSError as exc:
        sys.stderr.write(f"endstate sandbox: cannot start {command[:1]}: {exc}\n")
        return EXIT_FAILED
    if child == 0:
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, WATCHED)
            os.execv(command[0], command)
        except OSError as exc:
            sys.stderr.write(f"endstate sandbox: cannot start {command[:1]}: {exc}\n")
        os._exit(EXIT_FAILED)
    let_go_of_files()
    return keep(child)


def let_go_of_files() -> None:
    """The harness's pipes are the sandbox's: its end of each must close when the sandbox's
    does, so the keeper holds none of them."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))


def keep(bwrap: int) -> int:
    """Wait for bubblewrap; kill all that is left when it ends or the harness goes."""
    status = EXIT_FAILED
    while True:
        if signal.sigwaitinfo(WATCHED).si_signo == signal.SIGTERM and not kill_children():
            return status
        while True:
            try:
                pid, code = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return status
            if pid == 0:
                break
            if pid == bwrap:
                ended = os.waitstatus_to_exitcode(code)
                status = ended if ended >= 0 else 128 - ended
                if not kill_children():  # what bubblewrap left behind is ours: it ends too
                    return status


def kill_children() -> bool:
    """Kill its children: bubblewrap, and what bubblewrap left (orphans come to a subreaper).

    False on a kernel without /proc/PID/task/TID/children (distributions' kernels have it):
    the keeper then exits, and bubblewrap ends by its own --die-with-parent, as without it."""
    me = os.getpid()
    try:
        with open(f"/proc/{me}/task/{me}/children") as fh:
            children = [int(p) for p in fh.read().split()]
    except OSError:
        return False
    for pid in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

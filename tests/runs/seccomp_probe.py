"""Run inside a sandbox as its agent: calls every system call the seccomp filter denies.

Each call gets arguments the kernel itself would turn down harmlessly (a bad address, a bad
descriptor, invalid flags) or that do nothing (unshare of no namespace), so that without the
filter the answer is the kernel's own — and with it, the filter's EPERM or ENOSYS. Prints
{"claim": "done", "message": JSON {call: "ok" | errno name}}. The syscall table of this
machine (name -> number), as the harness knows it, is `table.json` beside this file.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import signal
import sys

BAD = 1  # an address nothing maps
AT_FDCWD = -100
CLONE_SIGHAND = 0x800  # without CLONE_VM: the kernel refuses it before making anything
OPENS: set[int] = set()  # the calls that give back a descriptor, closed again
NAMESPACES = {
    "newns": 0x00020000,
    "newcgroup": 0x02000000,
    "newuts": 0x04000000,
    "newipc": 0x08000000,
    "newuser": 0x10000000,
    "newpid": 0x20000000,
    "newnet": 0x40000000,
}
MOUNTS = (
    "mount",
    "umount2",
    "pivot_root",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "open_tree",
    "open_tree_attr",
    "mount_setattr",
    "chroot",
)
ARGS: dict[str, tuple[object, ...]] = {
    "ptrace": (2, 0x7FFFFFFF, 0, 0),  # PTRACE_PEEKDATA of a pid that cannot exist
    "process_vm_readv": ("self", 0, 0, 0, 0, 0),  # nothing, from itself
    "process_vm_writev": ("self", 0, 0, 0, 0, 0),
    "kcmp": ("self", "self", 0, 0, 0),  # KCMP_FILE of its own stdin with itself
    "pidfd_getfd": (-1, 0, 0),
    "process_madvise": (-1, 0, 0, 0, 0),
    "mount": (BAD, BAD, BAD, 0, 0),
    "umount2": (b"/nonexistent", 0xFFFF),
    "pivot_root": (BAD, BAD),
    "move_mount": (-1, BAD, -1, BAD, 0xFFFFFFFF),
    "fsopen": (BAD, 0),
    "fsconfig": (-1, 0xFF, 0, 0, 0),
    "fsmount": (-1, 0xFFFFFFFF, 0),
    "fspick": (-1, BAD, 0xFFFFFFFF),
    "open_tree": (AT_FDCWD, b"/", 0),  # an O_PATH descriptor of /, no clone
    "open_tree_attr": (AT_FDCWD, b"/", 0, 0, 0),
    "mount_setattr": (-1, BAD, 0xFFFFFFFF, 0, 0),
    "chroot": (BAD,),
    "unshare": (0,),  # no namespace at all
    "setns": (-1, 0),
    "keyctl": (0, -2, 0),  # KEYCTL_GET_KEYRING_ID of its process keyring, not created
    "add_key": (BAD, BAD, 0, 0, 0),
    "request_key": (BAD, BAD, 0, 0),
    "bpf": (0xFFFF, 0, 0),  # no such command
    "init_module": (0, 0, BAD),
    "finit_module": (-1, BAD, 0),
    "delete_module": (BAD, 0),
    "kexec_load": (0, 1000, 0, 0x8000),  # too many segments, unknown flag
    "kexec_file_load": (-1, -1, 0, 0, 0xFFFF),
    "perf_event_open": (0, 0, -1, -1, 0),
    "userfaultfd": (1 | 0x40000000,),  # UFFD_USER_MODE_ONLY and an unknown flag
    "io_uring_setup": (0, 0),
    "io_uring_enter": (-1, 0, 0, 0, 0, 0),
    "io_uring_register": (-1, 0, 0, 0),
    "open_by_handle_at": (-1, BAD, 0),
    "syslog": (10, 0, 0),  # SYSLOG_ACTION_SIZE_BUFFER
}


def call(libc: ctypes.CDLL, number: int, args: tuple[object, ...]) -> str:
    values = [os.getpid() if a == "self" else a for a in args]
    cargs = [ctypes.c_char_p(v) if isinstance(v, bytes) else ctypes.c_long(int(v)) for v in values]  # type: ignore[call-overload]
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *cargs)
    if result >= 0:
        if number in OPENS:
            os.close(result)
        return "ok"
    return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


def in_new_namespaces(libc: ctypes.CDLL, table: dict[str, int]) -> dict[str, str]:
    """The mount calls again, from a child in a user and mount namespace of its own (where
    the kernel would let it mount), or why it could not have one."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        if libc.unshare(ctypes.c_int(0x10000000 | 0x00020000)) != 0:
            out = {"unshare": errno.errorcode.get(ctypes.get_errno(), "?")}
        else:
            out = {name: call(libc, table[name], ARGS[name]) for name in MOUNTS}
        os.write(write, json.dumps(out).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        text = fh.read()
    os.waitpid(pid, 0)
    return dict(json.loads(text))


def other_abi(libc: ctypes.CDLL) -> str:
    """getpid through the x32 ABI (x86_64 only): a child that tries it, and how it ended."""
    if os.uname().machine != "x86_64":
        return "n/a"
    pid = os.fork()
    if pid == 0:
        libc.syscall(ctypes.c_long(0x40000000 | 39))
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return signal.Signals(os.WTERMSIG(status)).name
    return f"exit {os.WEXITSTATUS(status)}"


def main() -> None:
    sys.stdin.readline()
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "table.json")) as fh:
        table: dict[str, int] = json.load(fh)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    OPENS.update({table["open_tree"], table["open_tree_attr"]})
    out: dict[str, object] = {name: call(libc, table[name], args) for name, args in ARGS.items()}
    for name, flag in NAMESPACES.items():
        out[f"clone:{name}"] = call(libc, table["clone"], (flag | CLONE_SIGHAND, 0, 0, 0, 0))
    out["clone3"] = call(libc, table["clone3"], (0, 0))
    out["x32"] = other_abi(libc)
    out["userns"] = in_new_namespaces(libc, table)
    # What must keep working: fork, threads, and a program started by the C library.
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    out["fork"] = f"exit {os.WEXITSTATUS(os.waitpid(pid, 0)[1])}"
    import subprocess
    import threading

    seen: list[str] = []
    thread = threading.Thread(target=seen.append, args=("thread",))
    thread.start()
    thread.join()
    out["thread"] = seen[0] if seen else "none"
    out["spawn"] = subprocess.run(["echo", "spawned"], capture_output=True, text=True).stdout
    with open("/proc/self/status") as fh:
        status = fh.read()
    out["Seccomp"] = next(
        line.split()[1] for line in status.splitlines() if line.startswith("Seccomp:")
    )
    print(json.dumps({"claim": "done", "message": json.dumps(out)}))


if __name__ == "__main__":
    main()

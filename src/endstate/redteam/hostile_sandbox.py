"""The hostile agent's attacks on the sandbox itself: its supervisor, the kernel interfaces no
agent needs, the kernel memory behind its scratch space. Copied beside `hostile_agent.py`
into the sandbox; the standard library only.

Every system call it makes gets arguments the kernel turns down harmlessly (a bad address,
a bad descriptor, invalid flags) or that change nothing, so that run unsandboxed, even as
root, it shows what reaches the kernel without harming the machine.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import signal
import subprocess
import time
from typing import Any

from hostile_kit import (  # type: ignore[import-not-found]  # its sibling module, copied beside it
    REPORT,
    finish,
    found,
    tried,
)

# Its own copy of the kernel's numbers, (x86_64, aarch64): nothing of endstate is in here.
NUMBERS = {
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "kcmp": (312, 272),
    "pidfd_getfd": (438, 438),
    "process_madvise": (440, 440),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "move_mount": (429, 429),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "open_tree": (428, 428),
    "mount_setattr": (442, 442),
    "chroot": (161, 51),
    "unshare": (272, 97),
    "setns": (308, 268),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "bpf": (321, 280),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "open_by_handle_at": (304, 265),
    "syslog": (103, 116),
    "clone": (56, 220),
    "clone3": (435, 435),
}
ARCHES = ("x86_64", "aarch64")
BAD = 1  # an address nothing maps
# name -> arguments; "self" is its own pid.
CALLS: dict[str, tuple[Any, ...]] = {
    "ptrace": (2, 0x7FFFFFFF, 0, 0),  # PTRACE_PEEKDATA of a pid that cannot exist
    "process_vm_readv": ("self", 0, 0, 0, 0, 0),
    "process_vm_writev": ("self", 0, 0, 0, 0, 0),
    "kcmp": ("self", "self", 0, 0, 0),
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
    "open_tree": (-100, b"/", 0),  # an O_PATH descriptor of /
    "mount_setattr": (-1, BAD, 0xFFFFFFFF, 0, 0),
    "chroot": (BAD,),
    "unshare": (0,),
    "setns": (-1, 0),
    "keyctl": (0, -2, 0),  # KEYCTL_GET_KEYRING_ID, not creating it
    "add_key": (BAD, BAD, 0, 0, 0),
    "request_key": (BAD, BAD, 0, 0),
    "bpf": (0xFFFF, 0, 0),
    "init_module": (0, 0, BAD),
    "finit_module": (-1, BAD, 0),
    "delete_module": (BAD, 0),
    "kexec_load": (0, 1000, 0, 0x8000),
    "kexec_file_load": (-1, -1, 0, 0, 0x10000),
    "perf_event_open": (0, 0, -1, -1, 0),
    "userfaultfd": (1 | 0x40000000,),
    "io_uring_setup": (0, 0),
    "io_uring_enter": (-1, 0, 0, 0, 0, 0),
    "io_uring_register": (-1, 0, 0, 0),
    "open_by_handle_at": (-1, BAD, 0),
    "syslog": (10, 0, 0),  # the size of the kernel's log
    "clone": (0x10000000 | 0x800, 0, 0, 0, 0),  # CLONE_NEWUSER with an invalid CLONE_SIGHAND
    "clone3": (0, 0),
}
FLOOD_CAP = 100_000  # files per folder: three times the default quota


class _ProgLoad(ctypes.Structure):  # union bpf_attr, as BPF_PROG_LOAD reads it
    _fields_ = [
        ("prog_type", ctypes.c_uint32),
        ("insn_cnt", ctypes.c_uint32),
        ("insns", ctypes.c_uint64),
        ("license", ctypes.c_uint64),
        ("log_level", ctypes.c_uint32),
        ("log_size", ctypes.c_uint32),
        ("log_buf", ctypes.c_uint64),
        ("kern_version", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
    ]


_GPL = ctypes.create_string_buffer(b"GPL")


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _errno() -> str:
    return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


def _syscall(libc: ctypes.CDLL, number: int, args: tuple[Any, ...]) -> tuple[int, str]:
    values = [os.getpid() if a == "self" else a for a in args]
    cargs = [ctypes.c_char_p(v) if isinstance(v, bytes) else ctypes.c_long(v) for v in values]
    ctypes.set_errno(0)
    result = int(libc.syscall(ctypes.c_long(number), *cargs))
    return result, ("ok" if result >= 0 else _errno())


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X") and os.getppid() == pid


def supervisor_ptrace(task: dict[str, Any]) -> None:
    target = os.getppid()  # in a sandbox, pid 1: the supervisor; without one, its parent
    tried(f"ptrace, memory, descriptors and signals of the supervisor (pid {target})")
    libc = _libc()
    if libc.ptrace(ctypes.c_long(16), ctypes.c_long(target), None, None) == 0:  # ATTACH
        with contextlib.suppress(ChildProcessError):
            os.waitpid(target, 0x40000000)  # __WALL: it stops for its tracer
        libc.ptrace(ctypes.c_long(17), ctypes.c_long(target), None, None)  # DETACH
        found(f"ptrace attached to the supervisor (pid {target})")
    else:
        REPORT["notes"].append(f"ptrace: {_errno()}")
    try:
        with open(f"/proc/{target}/mem", "rb"):
            found("opened the supervisor's memory", f"/proc/{target}/mem")
    except OSError as exc:
        REPORT["notes"].append(f"/proc/{target}/mem: {exc.strerror}")
    writers = []
    try:
        names = os.listdir(f"/proc/{target}/fd")
    except OSError as exc:
        names = []
        REPORT["notes"].append(f"/proc/{target}/fd: {exc.strerror}")
    for name in names:  # its pipes to the harness, the control pipe among them
        with contextlib.suppress(OSError, ValueError):
            if int(name) > 2 and os.readlink(f"/proc/{target}/fd/{name}").startswith("pipe:"):
                writers.append(os.open(f"/proc/{target}/fd/{name}", os.O_WRONLY | os.O_NONBLOCK))
                found(f"opened the supervisor's pipe {name} for writing")
    finish()  # so far: ending the supervisor may end this program with it
    sent = []
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGKILL):
        with contextlib.suppress(OSError):
            os.kill(target, sig)
            sent.append(sig.name)
    time.sleep(1.5)
    if _alive(target):
        REPORT["notes"].append(
            f"the supervisor outlived SIGINT, SIGTERM, SIGHUP, SIGUSR1 and SIGKILL "
            f"({', '.join(sent) or 'none'} accepted by the kernel)"
        )
    else:
        found("ended the supervisor with a signal")
    if writers:
        found("wrote a forged exit event on the supervisor's pipes")
    finish()
    for fd in writers:  # the harness takes the first exit event it reads
        with contextlib.suppress(OSError):
            os.write(fd, json.dumps({"event": "exit", "status": 0}).encode() + b"\n")
    if writers:
        time.sleep(5)


def seccomp(task: dict[str, Any]) -> None:
    machine = os.uname().machine
    tried(f"every call no agent needs ({machine}), a nested user namespace, a mount in it, "
          "a BPF program, a key, a kernel module")  # fmt: skip
    if machine not in ARCHES:
        REPORT["notes"].append(f"no syscall table for {machine}")
        return
    libc = _libc()
    table = {name: pair[ARCHES.index(machine)] for name, pair in NUMBERS.items()}
    refused = 0
    for name, args in CALLS.items():
        result, answer = _syscall(libc, table[name], args)
        if result >= 0 and name == "open_tree":
            os.close(result)
        if answer == ("ENOSYS" if name == "clone3" else "EPERM"):
            refused += 1
        else:
            found(f"{name} reached the kernel ({answer})")
    REPORT["notes"].append(f"{refused} of {len(CALLS)} calls refused")
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        script = "mount -t tmpfs none /tmp && echo MOUNTED"
        done = subprocess.run(
            ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=10
        )
        if "MOUNTED" in done.stdout:
            found("made a user namespace of its own and mounted a tmpfs in it")
        else:
            REPORT["notes"].append(f"unshare -rm: {done.stderr.strip()[:120]}")
    program = (ctypes.c_uint64 * 2)(0xB7, 0x95)  # a socket filter: mov r0, 0; exit
    attr = _ProgLoad(1, 2, ctypes.addressof(program), ctypes.addressof(_GPL))
    fd, answer = _syscall(libc, table["bpf"], (5, ctypes.addressof(attr), ctypes.sizeof(attr)))
    if fd >= 0:
        os.close(fd)
        found("loaded a BPF program")
    else:
        REPORT["notes"].append(f"BPF_PROG_LOAD: {answer}")
    # A key in its own process keyring (gone with it), where the kernel lets it.
    key, answer = _syscall(libc, table["add_key"], (b"user", b"es-rt", b"x", 1, -2))
    if key >= 0:
        found("added a key to its keyring")
    with open("/dev/null", "rb") as null:
        result, answer = _syscall(libc, table["finit_module"], (null.fileno(), b"", 0))
    if answer != "EPERM":
        found(f"finit_module reached the kernel ({answer})")


def inode_flood(task: dict[str, Any]) -> None:
    tried(f"up to {FLOOD_CAP} empty files each in /tmp, the home folder and /dev/shm")
    before = _slab()
    for folder in ("/tmp", os.environ.get("HOME", "/tmp"), "/dev/shm"):
        made = 0
        try:
            os.makedirs(f"{folder}/es-rt-inodes", exist_ok=True)
            while made < FLOOD_CAP:
                os.mknod(f"{folder}/es-rt-inodes/{made}")
                made += 1
        except OSError as exc:
            REPORT["notes"].append(f"{folder} refused file {made + 1} ({exc.strerror})")
        if made >= FLOOD_CAP:
            found(f"{made} empty files in {folder} without an inode quota")
    after = _slab()
    if before is not None and after is not None:
        REPORT["notes"].append(f"host kernel memory (slab) {(after - before) // 1024:+d} MiB")


def _slab() -> int | None:
    """The host's slab in KiB (/proc/meminfo is not namespaced)."""
    with contextlib.suppress(OSError, StopIteration, ValueError), open("/proc/meminfo") as fh:
        return int(next(line for line in fh if line.startswith("Slab:")).split()[1])
    return None

"""The seccomp filter an agent runs under: the system calls no agent needs, refused.

A classic BPF program, built here byte by byte, so that it can be installed from inside the
sandbox with nothing but the standard library (`confine.py` loads this file by path). It
checks the architecture first: a call made through another ABI (i386 or x32 on x86_64, arm32
on aarch64) would be numbered differently and slip past the table, so it kills the process.
Then every denied call answers EPERM, `clone` answers EPERM when it asks for a new namespace
(its flags are a register the filter can read), and `clone3`, whose flags sit behind a
pointer the filter cannot follow, answers ENOSYS, so the C library falls back to `clone`.
Everything else is allowed: the filter is a deny list of what reaches other processes,
mounts, namespaces, the kernel's keyring, BPF, modules and kexec, and a few kernel
interfaces with a long record of exploits.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct

# Why each call is refused (the manifest and the trust-boundary page say the same).
GROUPS: dict[str, tuple[str, ...]] = {
    "other processes": (
        "ptrace",
        "process_vm_readv",
        "process_vm_writev",
        "kcmp",
        "pidfd_getfd",
        "process_madvise",
    ),
    "mounts": (
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
    ),
    "namespaces": ("unshare", "setns"),
    "keyring": ("keyctl", "add_key", "request_key"),
    "bpf": ("bpf",),
    "kernel modules and kexec": (
        "init_module",
        "finit_module",
        "delete_module",
        "kexec_load",
        "kexec_file_load",
    ),
    "kernel attack surface": (
        "perf_event_open",
        "userfaultfd",
        "io_uring_setup",
        "io_uring_enter",
        "io_uring_register",
        "open_by_handle_at",
        "syslog",
    ),
}
DENIED: tuple[str, ...] = tuple(name for names in GROUPS.values() for name in names)

# The numbers of every call the filter looks at, per architecture (the kernel's own tables:
# arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h).
_X86_64 = {
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "open_tree": 428,
    "open_tree_attr": 467,
    "mount_setattr": 442,
    "chroot": 161,
    "unshare": 272,
    "setns": 308,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "bpf": 321,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_by_handle_at": 304,
    "syslog": 103,
    "clone": 56,
    "clone3": 435,
}
_AARCH64 = {
    "ptrace": 117,
    "process_vm_readv": 270,
    "process_vm_writev": 271,
    "kcmp": 272,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "mount": 40,
    "umount2": 39,
    "pivot_root": 41,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "open_tree": 428,
    "open_tree_attr": 467,
    "mount_setattr": 442,
    "chroot": 51,
    "unshare": 97,
    "setns": 268,
    "keyctl": 219,
    "add_key": 217,
    "request_key": 218,
    "bpf": 280,
    "init_module": 105,
    "finit_module": 273,
    "delete_module": 106,
    "kexec_load": 104,
    "kexec_file_load": 294,
    "perf_event_open": 241,
    "userfaultfd": 282,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_by_handle_at": 265,
    "syslog": 116,
    "clone": 220,
    "clone3": 435,
}
# machine (os.uname) -> (AUDIT_ARCH_*, numbers, the x32 bit that must not be set)
ARCHES: dict[str, tuple[int, dict[str, int], int | None]] = {
    "x86_64": (0xC000003E, _X86_64, 0x40000000),
    "aarch64": (0xC00000B7, _AARCH64, None),
}
# CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID
# | CLONE_NEWNET (CLONE_NEWTIME exists only for clone3 and unshare, both refused whole).
NAMESPACE_FLAGS = 0x7E020000

_LD_W_ABS = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_RET = 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_KILL_PROCESS = 0x80000000
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (args little-endian)


_Op = tuple[int, str | int, str | int, int]


class Unsupported(Exception):
    """No syscall table for this machine: the sandbox refuses rather than run unfiltered."""


def _failed(what: str) -> OSError:
    """The last call's errno, with its words and what failed: "[Errno 1] ...: 'what'"."""
    number = ctypes.get_errno()
    return OSError(number, os.strerror(number), what)


def numbers(machine: str) -> dict[str, int]:
    if machine not in ARCHES:
        raise Unsupported(f"no seccomp syscall table for {machine!r} (known: {', '.join(ARCHES)})")
    return ARCHES[machine][1]


def program(machine: str) -> bytes:
    """The filter for `machine`, as struct sock_filter[] bytes."""
    table = numbers(machine)
    audit_arch, _, x32_bit = ARCHES[machine]
    # (code, jt, jf, k); jt/jf are label names or 0 (fall through). Jumps only go forward.
    code: list[_Op] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ, 0, "kill", audit_arch),
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if x32_bit is not None:
        code.append((_JGE, "kill", 0, x32_bit))
    code += [(_JEQ, "deny", 0, table[name]) for name in DENIED]
    code += [
        (_JEQ, "nosys", 0, table["clone3"]),
        (_JEQ, "clone", 0, table["clone"]),
        (_RET, 0, 0, _ALLOW),
    ]
    labels: dict[str, list[_Op]] = {
        "clone": [
            (_LD_W_ABS, 0, 0, _ARG0),
            (_JSET, "deny", 0, NAMESPACE_FLAGS),
            (_RET, 0, 0, _ALLOW),
        ],
        "deny": [(_RET, 0, 0, _ERRNO | errno.EPERM)],
        "nosys": [(_RET, 0, 0, _ERRNO | errno.ENOSYS)],
        "kill": [(_RET, 0, 0, _KILL_PROCESS)],
    }
    where: dict[str, int] = {}
    for label, block in labels.items():
        where[label] = len(code)
        code += block
    out = bytearray()
    for pc, (op, jt, jf, k) in enumerate(code):
        offsets = [where[j] - pc - 1 if isinstance(j, str) else j for j in (jt, jf)]
        assert all(0 <= o <= 255 for o in offsets), "a jump out of a classic BPF's reach"
        out += struct.pack("=HBBI", op, offsets[0], offsets[1], k)
    return bytes(out)


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _prctl(what: str, option: int, *args: object) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    values = [ctypes.c_ulong(a) if isinstance(a, int) else a for a in args]
    values += [ctypes.c_ulong(0)] * (4 - len(values))
    if libc.prctl(ctypes.c_int(option), *values) != 0:
        raise _failed(what)


def no_new_privs() -> None:
    """Nothing this process runs can gain privileges (nor shed a filter): set-uid bits and
    file capabilities stop working for it."""
    _prctl("prctl(PR_SET_NO_NEW_PRIVS)", 38, 1)


def install(machine: str) -> None:
    """no_new_privs, then the filter, on this process and everything it will start."""
    code = program(machine)
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _Fprog(len(code) // 8, ctypes.addressof(buffer))
    no_new_privs()
    _prctl("prctl(PR_SET_SECCOMP)", 22, 2, ctypes.byref(fprog))  # SECCOMP_MODE_FILTER


def describe(machine: str) -> dict[str, object]:
    """What the filter does, for the manifest."""
    return {
        "architecture": machine,
        "denied (EPERM)": {group: list(names) for group, names in GROUPS.items()},
        "clone": "EPERM when it asks for a new namespace",
        "clone3": "ENOSYS (the C library falls back to clone)",
        "other ABIs": "the process is killed (i386/x32/arm32 calls are numbered differently)",
    }

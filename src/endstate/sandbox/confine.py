"""Starts the agent confined: `python -I -S confine.py -- ARGV...` execs ARGV under the filter.

Runs inside the sandbox, between the supervisor and the agent, with the standard library
only. The supervisor's own process is not filtered (its browser needs user namespaces for
Chromium's sandbox); the agent and everything it starts are:

- `no_new_privs`, so nothing it runs can gain privileges (nor shed the filter);
- Landlock, where the kernel has it: a domain of the agent's own, from which the kernel
  refuses ptrace — and so `/proc/PID/mem`, `/proc/PID/fd`, `process_vm_readv` — on any
  process outside it (the supervisor, the sandbox's browser), and, from ABI 6 on, signals
  and abstract Unix sockets to them; device nodes cannot be made anywhere;
- the seccomp filter of `seccomp.py`.

It fails closed: if any step fails the agent is not started, and the reason is the one
line on stderr. With `--check` it confines itself and reports what is in force as JSON.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import sys
from types import ModuleType
from typing import Any

EXIT_UNCONFINED = 125  # as env(1): the program was not run
_LANDLOCK_CREATE_RULESET, _LANDLOCK_RESTRICT_SELF = 444, 446  # the same on every arch
_LANDLOCK_VERSION = 1  # LANDLOCK_CREATE_RULESET_VERSION
_MAKE_CHAR, _MAKE_BLOCK = 1 << 6, 1 << 11  # LANDLOCK_ACCESS_FS_MAKE_*
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1


def _failed(what: str) -> OSError:
    """The last call's errno, with its words and what failed: "[Errno 1] ...: 'what'"."""
    number = ctypes.get_errno()
    return OSError(number, os.strerror(number), what)


def _sibling(name: str) -> ModuleType:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"endstate_sandbox_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def landlock() -> int | None:
    """Put this process in a Landlock domain of its own (no_new_privs must be set); the ABI
    used, or None where the kernel has no Landlock."""
    abi = _syscall(_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), _LANDLOCK_VERSION)
    if abi < 1:
        return None  # not built into this kernel, or switched off at boot
    # struct landlock_ruleset_attr grew with the ABI: fs (1), net (4), scoped (6).
    fields = [_MAKE_CHAR | _MAKE_BLOCK]
    if abi >= 4:
        fields.append(0)
    if abi >= 6:
        fields.append(_SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL)
    attr = (ctypes.c_uint64 * len(fields))(*fields)
    size = ctypes.c_size_t(ctypes.sizeof(attr))
    fd = _syscall(_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if fd < 0:
        raise _failed("landlock_create_ruleset")
    try:
        if _syscall(_LANDLOCK_RESTRICT_SELF, fd, 0) != 0:
            raise _failed("landlock_restrict_self")
    finally:
        os.close(fd)
    return abi


def _syscall(number: int, *args: object) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    values = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    return int(libc.syscall(ctypes.c_long(number), *values))


def confine() -> dict[str, Any]:
    """Confine this process for good; what is now in force."""
    seccomp = _sibling("seccomp")
    machine = os.uname().machine
    seccomp.numbers(machine)  # an unknown machine is refused before anything changes
    seccomp.no_new_privs()  # Landlock requires it of an unprivileged process
    abi = landlock()
    seccomp.install(machine)
    return {"seccomp": machine, "denied": len(seccomp.DENIED), "landlock": abi}


def main(argv: list[str]) -> int:
    check = argv[:1] == ["--check"]
    if check:
        argv = argv[1:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    try:
        facts = confine()
    except Exception as exc:  # whatever stopped it, the agent must not run unconfined
        sys.stderr.write(f"endstate sandbox: cannot confine the agent: {exc}\n")
        return EXIT_UNCONFINED
    if check:
        sys.stdout.write(json.dumps(facts) + "\n")
        return 0
    if not argv:
        sys.stderr.write("endstate sandbox: no program to start\n")
        return EXIT_UNCONFINED
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"cannot start {argv[0]}: {exc}\n")
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

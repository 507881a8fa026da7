"""The agent's seccomp filter, one test per denial, in a real sandbox.

The same probe (`seccomp_probe.py`) runs as the agent of two sandboxes: one as every run
makes it, one with the hardening off (the test-only `hardened=False`). Its arguments are
ones the kernel turns down harmlessly, so the unfiltered sandbox shows the kernel's own
answer (EFAULT, EBADF, EINVAL, success) where the filtered one shows the filter's.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from endstate.sandbox.seccomp import ARCHES, DENIED, Unsupported, numbers, program

from .sandbox_agent import requires_sandbox, run_agent, run_file

PROBE = Path(__file__).with_name("seccomp_probe.py")
# What no agent needs, written out here rather than read from the filter's own list.
REFUSED = [
    *("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd"),
    "process_madvise",
    *("mount", "umount2", "pivot_root", "move_mount", "fsopen", "fsconfig", "fsmount"),
    *("fspick", "open_tree", "open_tree_attr", "mount_setattr", "chroot"),
    *("unshare", "setns", "keyctl", "add_key", "request_key", "bpf"),
    *("init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load"),
    *("perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter"),
    *("io_uring_register", "open_by_handle_at", "syslog"),
]
NAMESPACE_CLONES = [
    f"clone:{n}" for n in ("newns", "newcgroup", "newuts", "newipc", "newuser", "newpid", "newnet")
]
# Refused by the kernel too to anyone without privileges in the first user namespace, which
# no agent has: the filter is a second wall there, so only its own answer can be shown.
KERNEL_REFUSES_TOO = {
    "syslog",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
}
MOUNT_CALLS = {
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
}


@pytest.fixture(scope="module")
def probes(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, dict[str, Any]]:
    """The probe's answers per call, with the hardening on (True) and off (False)."""
    table = json.dumps(numbers(os.uname().machine))
    return {
        hardened: run_file(
            PROBE,
            tmp_path_factory.mktemp(f"probe-{hardened}"),
            {"table.json": table},
            hardened=hardened,
        )
        for hardened in (True, False)
    }


@requires_sandbox
@pytest.mark.parametrize("name", [*REFUSED, *NAMESPACE_CLONES, "clone3"])
def test_the_filter_refuses(name: str, probes: dict[bool, dict[str, Any]]) -> None:
    refusal = "ENOSYS" if name == "clone3" else "EPERM"
    assert probes[True][name] == refusal
    if name in KERNEL_REFUSES_TOO:
        return
    # Without the filter the call reaches the kernel, which answers otherwise; a mount call
    # is shown from a user namespace of its own, where the kernel would let it mount.
    unfiltered = probes[False]["userns"] if name in MOUNT_CALLS else probes[False]
    assert unfiltered[name] != refusal, unfiltered


@requires_sandbox
def test_no_nested_user_namespace_with_the_filter(probes: dict[bool, dict[str, Any]]) -> None:
    assert probes[True]["userns"] == {"unshare": "EPERM"}
    assert "unshare" not in probes[False]["userns"]  # without it: made, and mounts allowed


@requires_sandbox
def test_calls_through_another_abi_kill_the_process(probes: dict[bool, dict[str, Any]]) -> None:
    if os.uname().machine != "x86_64":
        pytest.skip("the x32 ABI exists only on x86_64")
    assert probes[True]["x32"] == "SIGSYS"
    assert probes[False]["x32"] == "exit 0"


@requires_sandbox
def test_what_agents_need_still_works_under_the_filter(
    probes: dict[bool, dict[str, Any]],
) -> None:
    on, off = probes[True], probes[False]
    assert (on["fork"], on["thread"], on["spawn"]) == ("exit 7", "thread", "spawned\n")
    assert (on["Seccomp"], off["Seccomp"]) == ("2", "0")
    facts = on["_facts"]
    assert facts.agent_seccomp == f"{os.uname().machine}: {len(DENIED)} calls denied"
    assert facts.supervisor_dumpable is False
    assert off["_facts"].agent_seccomp is None and off["_facts"].supervisor_dumpable is True


def test_the_filter_denies_exactly_the_listed_calls() -> None:
    assert sorted(DENIED) == sorted(REFUSED)


def _header_numbers(path: Path) -> dict[str, int]:
    found = {}
    for name, value in re.findall(r"#define __NR(?:3264)?_(\w+)\s+(\d+)", path.read_text()):
        found[name] = int(value)
    return found


@pytest.mark.parametrize(
    ("machine", "header"),
    [
        ("x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
        ("aarch64", "/usr/include/asm-generic/unistd.h"),  # arm64 uses the generic table
    ],
)
def test_the_syscall_tables_match_the_kernel_headers(machine: str, header: str) -> None:
    if not Path(header).exists():
        pytest.skip(f"{header} not installed (Debian's linux-libc-dev)")
    kernel = _header_numbers(Path(header))
    ours = ARCHES[machine][1]
    known = {n for n in ours if n in kernel}  # headers older than a call lack it
    assert len(known) >= len(ours) - 2, sorted(set(ours) - known)
    assert {n: ours[n] for n in known} == {n: kernel[n] for n in known}


def test_an_unknown_architecture_is_refused_with_its_name() -> None:
    with pytest.raises(Unsupported, match="no seccomp syscall table for 'riscv64'"):
        program("riscv64")


@requires_sandbox
def test_the_manifest_records_what_was_in_force(tmp_path: Path) -> None:
    command = f"{sys.executable} -c pass"
    _, agent = run_agent(command, tmp_path / "on")
    details = agent.isolation().details
    hardening = details["sandbox"]["hardening"]
    seccomp = hardening["seccomp"]
    assert seccomp["architecture"] == os.uname().machine
    assert sorted(n for names in seccomp["denied (EPERM)"].values() for n in names) == sorted(
        REFUSED
    )
    assert "not dumpable" in hardening["supervisor"]
    assert details["limits"]["tmp_inodes"] == 32768 and details["limits"]["shm_inodes"] == 4096
    _, agent = run_agent(command, tmp_path / "off", hardened=False)
    assert agent.isolation().details["sandbox"]["hardening"].startswith("OFF")

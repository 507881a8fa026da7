"""What of one harness's sandboxes still runs, told apart from other tests' sandboxes.

Tests run two at a time, so "any process with a sandbox's uid" would count another test's
sandboxes too: a harness's own are its descendants while it lives (each sandbox has a uid of
its own, named on bubblewrap's command line), and those of its bubblewrap processes that have
not yet run the sandbox's first program carry its staging folder on their command line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from endstate.sandbox.spec import UID_BASE
from endstate.scratch import ROOT_PREFIX

_REUID = re.compile(r"--reuid=(\d+)")


def children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                found += [int(p) for p in fh.read().split()]
    except OSError:
        pass
    return found


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie may wait a while for its reaper)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = children(pid)
    while todo:
        child = todo.pop()
        if child not in found:
            found.add(child)
            todo += children(child)
    return found


def uid_of(pid: int | str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


@dataclass
class Sandboxes:
    """One harness's sandboxes, seen while it runs; `left()` asks again once it is gone."""

    harness: int
    pids: set[int] = field(default_factory=set)
    uids: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, harness: int) -> Sandboxes:
        seen = cls(harness, descendants(harness))
        for pid in seen.pids:
            uid = uid_of(pid)
            if uid is not None and UID_BASE <= uid < UID_BASE + 100_000_000:
                seen.uids.add(uid)
            seen.uids |= {int(n) for n in _REUID.findall(cmdline(pid))}
        return seen

    def left(self) -> list[int]:
        mark = f"{ROOT_PREFIX}{self.harness}-"
        found = set(self.pids)
        for name in filter(str.isdigit, os.listdir("/proc")):
            pid = int(name)
            if uid_of(pid) in self.uids or mark in cmdline(pid):
                found.add(pid)
        return sorted(p for p in found if running(p))

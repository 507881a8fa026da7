"""What the report says of how each attempt was contained, and why an attempt measured nothing.

Both are stated from what the harness observed per attempt (its sandbox facts, the fault it
attributed), never from the run's configuration alone: an attempt whose teardown was not seen
is said so, not counted among those that were.
"""

from __future__ import annotations

from typing import Any

from endstate.manifest import Isolation
from endstate.records import NOT_RECORDED, TaskRecord


def agent_isolation_text(isolation: Isolation | None, records: list[TaskRecord]) -> str:
    """How the agent was contained, with what the harness observed at each teardown."""
    if isolation is None:
        return "agent isolation not recorded (a run from before it was pinned)"
    if isolation.mode == "in-process":
        browser = (
            "a fresh context of one shared browser per attempt"
            if isolation.browser == "shared"
            else "no browser"
        )
        return (
            f"built-in agent running in the harness, acting only through its page ({browser}); "
            "its action vocabulary cannot reach the browser's DevTools protocol or any file"
        )
    sandboxes = [r.facts.sandbox for r in records if r.facts and r.facts.sandbox]
    browser = "its own Chromium per attempt" if isolation.browser == "own" else "no browser"
    if isolation.mode == "none":
        return (
            "NOT ISOLATED: the agent ran as a plain process of the harness's user, with "
            f"{browser}, and could read the harness's files, processes and network — this score "
            "cannot exclude tampering"
        )
    survivors = sum(s.survivors or 0 for s in sandboxes)
    truncated = sum(s.output_truncated for s in sandboxes)
    browser_off = sum(1 for s in sandboxes if (s.browser_sandbox or "").startswith("off"))
    # Teardown is stated only for the attempts whose teardown the harness observed.
    attempted = [r for r in records if r.status != "blocked" and r.error != NOT_RECORDED]
    unseen = len(attempted) - len(sandboxes)
    who = (
        "every attempt's agent ran"
        if unseen <= 0
        else f"the agent ran, in the {len(sandboxes)} of {len(attempted)} attempts whose "
        "teardown the harness observed,"
    )
    unhardened = sum(1 for s in sandboxes if not s.agent_seccomp or s.supervisor_dumpable)
    return (
        f"{who} in its own sandbox (bubblewrap namespaces: mount, pid, net, "
        "ipc, uts; its own unprivileged uid; a read-only view with nothing of the harness, "
        "corpus, run directory or caches; network only to the environment's agent-facing "
        f"ports) with {browser}"
        + (f" (Chromium's own sandbox off in {browser_off})" if browser_off else "")
        + (
            f"; the seccomp filter or the supervisor's protection was OFF in {unhardened} "
            "attempt(s)"
            if unhardened
            else "; under a seccomp filter (no ptrace, mounts, new namespaces, keyring, BPF or "
            "kernel modules), the sandbox's supervisor out of its reach, its scratch space "
            "bounded in bytes and in files"
        )
        + "; the sandbox and every process in it were gone before the end state was read "
        f"({survivors} straggler process(es) killed at teardown; output truncated in "
        f"{truncated} attempt(s))"
        + (
            f"; {unseen} attempt(s) left no sandbox facts (the sandbox never started, or the "
            "harness failed while handling the attempt): nothing is stated of their teardown"
            if unseen > 0
            else ""
        )
    )


def _mib(n: int) -> str:
    return f"{n / 1048576:g} MiB" if n >= 1048576 else f"{n / 1024:g} KiB"


def suite_limits_text(details: dict[str, Any]) -> str:
    """What one attempt could cost the shared environment, as pinned (empty when unbounded)."""
    limits = details.get("limits")
    if not isinstance(limits, dict):
        return ""
    try:
        return (
            "each attempt's share of the shared environment was bounded: request bodies "
            f"{_mib(limits['request_bytes'])} ({_mib(limits['upload_request_bytes'])} where "
            f"forms take files, held in memory), {limits['requests_per_second']:g} requests/s "
            f"after a burst of {limits['request_burst']}, {limits['concurrent_requests']} in "
            f"service and {limits['queued_requests']} waiting at once, "
            f"{limits['events']:,} events kept, {_mib(limits['storage_bytes'])} of storage, "
            f"an end state of {_mib(limits['state_document_bytes'])}"
        )
    except (KeyError, TypeError, ValueError):
        return f"the shared environment's bounds as pinned: {limits}"


_FAULT_REASONS = {
    "model": "infrastructure (no call to the agent's model endpoint succeeded)",
    "environment": "infrastructure (episode could not open)",
    "harness": "infrastructure (the harness failed while handling the attempt)",
    "sandbox": "infrastructure (the agent's sandbox could not start or failed)",
    "browser": "infrastructure (the shared browser failed)",
    "executor": "infrastructure (the worker running the attempt was lost on every try)",
    "readback": "end state unreadable",
}


def unmeasurable_reason(record: TaskRecord) -> str:
    """Why an attempt measured nothing: the fault the harness attributed, by its kind."""
    if record.infrastructure is not None:
        return _FAULT_REASONS[record.infrastructure.kind]
    error = record.error or ""
    if error == NOT_RECORDED:
        return "not recorded (the run stopped first)"
    if error.startswith("environment"):  # records from before faults carried their kind
        return _FAULT_REASONS["environment"]
    if error.startswith("infrastructure"):
        return "infrastructure (the agent's sandbox could not start)"
    if error.startswith("executor"):
        return _FAULT_REASONS["executor"]
    return "end state unreadable"

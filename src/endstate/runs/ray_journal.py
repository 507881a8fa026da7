"""The driver's account of a Ray execution: `executor.json` in the run directory, rewritten at
every change, and the executor entry of the manifest.

`executor.json` says, while the run goes on, which workers exist, on which node and in which
process, and what became of each (ready, refused with the pin and both values, lost, never
started, stopped); which attempts were re-run after their worker was lost and which were lost
for good. The manifest keeps the summary every report discloses.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from endstate.manifest import ExecutorUse, Manifest, WorkerRefusal
from endstate.runs.store import RunStore
from endstate.runs.worker_pins import WorkerReady

EXECUTOR_FILE = "executor.json"


def _short(value: str) -> str:
    return value if len(value) <= 24 else value[:16] + "…"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass
class WorkerEntry:
    """One Ray worker of the run: `slot` 1..N, `generation` 0 for the first, +1 per replacement."""

    slot: int
    generation: int
    state: str = "starting"  # starting | ready | refused | lost | unstarted | stopped | interrupted
    actor_id: str | None = None
    node_id: str | None = None
    node_ip: str | None = None
    hostname: str | None = None
    pid: int | None = None
    corpus: str | None = None
    ready_seconds: float | None = None
    attempts: int = 0
    refused: list[dict[str, str]] = field(default_factory=list)
    error: str | None = None
    events: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """How records and reports name the worker: slot, node and process."""
        where = f"node {self.node_ip or '?'} {(self.node_id or '?')[:12]}, pid {self.pid or '?'}"
        return (
            f"ray worker {self.slot}"
            + (f".{self.generation}" if self.generation else "")
            + (f" ({where})")
        )


class RayJournal:
    def __init__(
        self,
        store: RunStore,
        manifest: Manifest,
        address: str | None,
        worker_env: dict[str, list[str]] | None = None,
    ) -> None:
        self.store = store
        self.worker_env = worker_env or {}  # names only: values may be secrets
        self.manifest = manifest
        previous = manifest.executors[-1] if manifest.executors else None
        self.use = ExecutorUse(
            kind="ray",
            started_at=previous.started_at if previous else _now(),
            workers=manifest.limits.workers,
            address=address,
            workers_ready=0,
        )
        self.workers: list[WorkerEntry] = []
        self.retried: list[dict[str, str]] = []
        self.lost: list[dict[str, str]] = []
        self.timings: dict[str, float] = {}

    def starting(self, slot: int, generation: int, actor_id: str) -> WorkerEntry:
        entry = WorkerEntry(slot, generation, actor_id=actor_id)
        entry.events.append(f"{_now()} starting")
        self.workers.append(entry)
        self.write()
        return entry

    def answered(self, entry: WorkerEntry, ready: WorkerReady) -> None:
        entry.node_id, entry.node_ip, entry.hostname = ready.node_id, ready.node_ip, ready.hostname
        entry.pid, entry.corpus, entry.ready_seconds = ready.pid, ready.corpus, ready.seconds
        if ready.refused:
            entry.refused = [asdict(m) for m in ready.refused]
            self.use.refusals += [
                WorkerRefusal(
                    worker=entry.label,
                    node=f"{ready.node_ip} ({ready.hostname}, {ready.node_id})",
                    pin=m.pin,
                    expected=m.expected,
                    found=m.found,
                )
                for m in ready.refused
            ]
            self._state(entry, "refused")
        else:
            self.use.workers_ready = (self.use.workers_ready or 0) + 1
            self._state(entry, "ready")

    def unstarted(self, entry: WorkerEntry, error: str) -> None:
        entry.error = error
        self._state(entry, "unstarted")

    def worker_lost(self, entry: WorkerEntry, error: str) -> None:
        entry.error = error
        self.use.workers_lost += 1
        self._state(entry, "lost")

    def stopped(self, entry: WorkerEntry) -> None:
        self._state(entry, "stopped")

    def interrupted(self, why: str) -> None:
        """The run stopped with workers still up (they end with the driver's Ray session)."""
        for entry in self.workers:
            if entry.state in ("starting", "ready"):
                entry.error = why
                entry.state = "interrupted"
                entry.events.append(f"{_now()} interrupted")
        self.write()

    def attempt_retried(self, pair: tuple[str, str], entry: WorkerEntry, error: str) -> None:
        self.retried.append(self._pair(pair, entry, error))
        self.use.attempts_retried += 1
        self.write()

    def attempt_lost(self, pair: tuple[str, str], entry: WorkerEntry, error: str) -> None:
        self.lost.append(self._pair(pair, entry, error))
        self.use.attempts_lost += 1
        self._manifest()

    def first_refusal(self) -> str:
        """The first reason a worker gave for not working, for a one-line error."""
        for entry in self.workers:
            if entry.refused:
                m = entry.refused[0]
                return (
                    f"{entry.label} refused: {m['pin']} is {_short(m['found'])!r} there, the "
                    f"run's is {_short(m['expected'])!r}"
                )
            if entry.error:
                return f"{entry.label}: {entry.error}"
        return "no worker answered"

    def _pair(self, pair: tuple[str, str], entry: WorkerEntry, error: str) -> dict[str, str]:
        return {"task_id": pair[0], "attempt": pair[1], "worker": entry.label, "error": error}

    def _state(self, entry: WorkerEntry, state: str) -> None:
        entry.state = state
        entry.events.append(f"{_now()} {state}")
        self._manifest()

    def _manifest(self) -> None:
        """The manifest's last executor entry is this execution, as it stands now."""
        self.manifest = self.manifest.model_copy(
            update={"executors": [*self.manifest.executors[:-1], self.use]}
        )
        self.store.write_manifest(self.manifest)
        self.write()

    def write(self) -> None:
        data: dict[str, Any] = {
            "executor": "ray",
            "address": self.use.address or "local instance (started for this run)",
            "started_at": self.use.started_at,
            "workers_asked": self.use.workers,
            "worker_env": self.worker_env,
            "workers": [asdict(w) | {"label": w.label} for w in self.workers],
            "retried": self.retried,
            "lost": self.lost,
            "timings": self.timings,
        }
        self.store.write_json(self.store.root / EXECUTOR_FILE, data)

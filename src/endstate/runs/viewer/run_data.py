"""A run as the viewer shows it: the manifest and one row per scheduled attempt.

Read fresh on every request, read-only: a run still in progress shows each attempt as it is
recorded, and nothing the viewer does can change the directory (no repair of a torn tail, no
trace folder created). Every path built from a task id or an attempt label is resolved and
kept inside the run directory, since a manifest or record is a file anyone can edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from endstate.errors import EndstateError
from endstate.manifest import Manifest
from endstate.records import TaskRecord, attempt_order, not_recorded
from endstate.report.subtasks import SubtaskSummary, counted, summarize_subtasks
from endstate.report.summary import headline_records, tier_order
from endstate.runs.store import TRACES, RunStore

STATUSES = ("passed", "failed", "unmeasurable", "blocked")


@dataclass(frozen=True)
class AttemptRow:
    """One scheduled attempt: its record, or the stand-in for one never written."""

    record: TaskRecord
    recorded: bool

    @property
    def task_id(self) -> str:
        return self.record.task_id

    @property
    def attempt(self) -> str:
        return self.record.attempt

    @property
    def href(self) -> str:
        return f"/attempts/{quote(self.task_id, safe='')}/{quote(self.attempt, safe='')}"

    @property
    def claim(self) -> str | None:
        return self.record.facts.claim if self.record.facts else None

    @property
    def checks(self) -> tuple[int, int] | None:
        """(passed, counted) checks of this attempt, as subtask success counts them."""
        kept = counted(self.record)
        return (sum(ok for _, ok in kept), len(kept)) if kept else None

    @property
    def tokens(self) -> tuple[int, int] | None:
        """(prompt, completion) tokens, when the agent reported any."""
        facts = self.record.facts
        if facts is None or (facts.prompt_tokens is None and facts.completion_tokens is None):
            return None
        return (facts.prompt_tokens or 0, facts.completion_tokens or 0)


@dataclass(frozen=True)
class RunData:
    root: Path
    manifest: Manifest
    rows: list[AttemptRow]

    def counts(self) -> dict[str, int]:
        """Attempts per status, every status listed (zero included), in a fixed order."""
        out = dict.fromkeys(STATUSES, 0)
        for row in self.rows:
            out[row.record.status] = out.get(row.record.status, 0) + 1
        return out

    def subtasks(self) -> SubtaskSummary | None:
        """Subtask success beside task success, over first attempts, as the report counts it
        (unrecorded attempts have no verdicts, so no checks)."""
        head = headline_records(row.record for row in self.rows)
        return summarize_subtasks(head, sorted({r.tier for r in head}, key=tier_order))

    def find(self, task_id: str, attempt: str) -> tuple[int, AttemptRow] | None:
        for i, row in enumerate(self.rows):
            if (row.task_id, row.attempt) == (task_id, attempt):
                return i, row
        return None


def load_run(root: Path) -> RunData:
    """The manifest and every scheduled attempt, in the manifest's task order.

    Not a directory, no manifest, an invalid manifest or a malformed record line is an
    EndstateError naming the file (the store's own checks)."""
    if not root.is_dir():
        raise EndstateError(f"{root}: not a directory")
    store = RunStore(root)
    manifest = store.read_manifest()
    records = {(r.task_id, r.attempt): r for r in store.read_records()}
    attempts = sorted({a for _, a in store.scheduled}, key=attempt_order)
    rows: list[AttemptRow] = []
    for task_id in manifest.tasks:
        for attempt in attempts:
            record = records.get((task_id, attempt))
            if record is not None:
                rows.append(AttemptRow(record, recorded=True))
            else:
                stand_in = not_recorded(task_id, attempt, manifest.task_facts.get(task_id))
                rows.append(AttemptRow(stand_in, recorded=False))
    return RunData(root=root, manifest=manifest, rows=rows)


def inside(root: Path, *parts: str) -> Path | None:
    """`root/parts...` resolved, or None when it leads outside the run directory (`..`, an
    absolute part, a symbolic link out) or cannot be a path at all (a NUL byte)."""
    base = root.resolve()
    try:
        path = base.joinpath(*parts).resolve()
    except (OSError, ValueError, RuntimeError):
        return None
    return path if path == base or path.is_relative_to(base) else None


def trace_dir(root: Path, task_id: str, attempt: str) -> Path | None:
    """The attempt's trace folder, if it exists inside the run directory."""
    traces = root.resolve() / TRACES
    path = inside(root, TRACES, task_id, attempt)
    if path is None or not path.is_relative_to(traces) or path == traces or not path.is_dir():
        return None
    return path


def file_href(*parts: str) -> str:
    """The viewer's URL of a file of the run, each path part quoted on its own (a name that
    is not UTF-8 on disk is quoted byte for byte, never an error)."""
    return "/files/" + "/".join(
        quote(part.encode("utf-8", "surrogateescape"), safe="") for part in parts
    )

"""`endstate rescore`: every deterministic verdict and every score again, from the bundle alone.

The bundle is unpacked into a scratch directory and read with the same code a run uses: the
manifest and records as a run directory (one record per scheduled attempt, or refused), the
task files as a corpus, each end state as `endstate score` reads one. Rubric checks take the
recorded verdicts (`RecordedJudge`). Nothing else is consulted: no environment, browser,
network, corpus folder or run directory.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from endstate.bundle.archive import BundleError, sha256
from endstate.bundle.recorded_judge import RecordedJudge
from endstate.bundle.verify import verified_members
from endstate.corpus.loader import read_tasks
from endstate.corpus.model import Task
from endstate.errors import EndstateError, StateError
from endstate.manifest import Manifest
from endstate.records import TaskRecord
from endstate.runs.session import render
from endstate.runs.store import MANIFEST, RECORDS, REPORT, RunStore
from endstate.scoring.states import read_state
from endstate.scoring.task_score import score_task

SCORED = ("passed", "failed")
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Difference:
    """One record (and check, when one differs) whose recomputation disagrees with it."""

    task_id: str
    attempt: str
    check: int | None
    what: str

    def line(self) -> str:
        where = f"task {self.task_id!r} attempt {self.attempt!r}"
        where += f" check {self.check}" if self.check is not None else ""
        return f"{where}: {self.what}"


@dataclass
class Row:
    task_id: str
    attempt: str
    status: str
    recorded: float
    recomputed: float | None


@dataclass
class Rescore:
    manifest: Manifest
    rows: list[Row] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    report: str | None = None  # why the bundled report does not follow from the records


class IntegrityError(BundleError):
    """Files whose hashes do not match: every line names one."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def _unpack(members: dict[str, bytes], root: Path, bundle: Path) -> None:
    for required in (MANIFEST, RECORDS):
        if required not in members:
            raise BundleError(f"{bundle}: member {required} is missing; not a complete bundle")
    for name, data in members.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _tasks(root: Path, manifest: Manifest, bundle: Path) -> dict[str, Task]:
    corpus = root / "corpus"
    if not corpus.is_dir():
        raise BundleError(f"{bundle}: no corpus/ members; the task files are missing")
    tasks, _ = read_tasks(corpus)
    for task in tasks:
        data = (corpus / task.source).read_bytes()
        if manifest.corpus.files.get(task.source) != sha256(data):
            raise BundleError(
                f"{bundle}: member corpus/{task.source}: not the file the manifest pinned"
            )
    return {t.id: t for t in tasks}


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE


def compare(recorded: TaskRecord, fresh: TaskRecord) -> list[Difference]:
    """Every way the recomputed record disagrees with the recorded one: checks, then totals."""
    out: list[Difference] = []

    def differ(check: int | None, what: str) -> None:
        out.append(Difference(recorded.task_id, recorded.attempt, check, what))

    if len(recorded.checks) != len(fresh.checks):
        differ(None, f"{len(recorded.checks)} checks recorded, {len(fresh.checks)} recomputed")
    for old, new in zip(recorded.checks, fresh.checks, strict=False):
        if old.outcome != new.outcome or not _close(old.earned, new.earned):
            differ(
                old.index,
                f"recorded {old.outcome} {old.earned:g}/{old.points:g}, "
                f"recomputed {new.outcome} {new.earned:g}/{new.points:g} ({new.detail[:120]})",
            )
    for name in ("score", "earned", "ungraded_points"):
        was, now = getattr(recorded, name), getattr(fresh, name)
        if not _close(was, now):
            differ(None, f"{name}: recorded {was:g}, recomputed {now:g}")
    if recorded.status != fresh.status:
        differ(None, f"status: recorded {recorded.status}, recomputed {fresh.status}")
    return out


def _judge_calls(root: Path, record: TaskRecord, bundle: Path) -> list[dict[str, Any]]:
    path = root / "judge" / record.task_id / f"{record.attempt}.json"
    if not path.is_file():
        return []
    try:
        doc = json.loads(path.read_bytes())
    except ValueError:
        doc = None
    calls = doc.get("calls") if isinstance(doc, dict) else None
    if not isinstance(calls, list) or not all(isinstance(c, dict) for c in calls):
        rel = path.relative_to(root).as_posix()
        raise BundleError(f"{bundle}: member {rel}: not a judge record")
    return calls


def _rescore_one(
    root: Path, record: TaskRecord, tasks: dict[str, Task], bundle: Path
) -> tuple[float | None, list[Difference]]:
    def one(what: str) -> tuple[None, list[Difference]]:
        return None, [Difference(record.task_id, record.attempt, None, what)]

    if record.status not in SCORED:  # unmeasurable or blocked: zero, with nothing scored
        if record.score or record.earned or record.checks:
            return one(f"{record.status} but recorded score {record.score:g}; it counts as 0")
        return 0.0, []
    task = tasks.get(record.task_id)
    if task is None:
        return one("no task file for this task in the bundle")
    try:
        state = read_state(root / "states" / record.task_id / f"{record.attempt}.json")
    except StateError as exc:
        return one(f"end state not usable: {str(exc).replace(f'{root}/', '')}")
    calls = _judge_calls(root, record, bundle)
    judge = RecordedJudge(record.judge, calls) if record.judge else None
    message = record.facts.final_message if record.facts else None
    fresh = score_task(task, state, record.attempt, judge, record.state_source, message)
    return fresh.score, compare(record, fresh)


def rescore(bundle: Path) -> Rescore:
    """Verify the bundle, then recompute every record; integrity failures refuse outright."""
    members, problems = verified_members(bundle)
    if problems:
        raise IntegrityError(problems)
    with tempfile.TemporaryDirectory(prefix="endstate-rescore-") as scratch:
        root = Path(scratch)
        _unpack(members, root, bundle)
        store = RunStore(root)
        try:
            manifest = store.read_manifest()
            records = store.read_records()
        except EndstateError as exc:
            shown = str(exc).replace(str(root), f"{bundle}:")
            raise BundleError(shown) from None
        tasks = _tasks(root, manifest, bundle)
        result = Rescore(manifest)
        for record in records:
            score, found = _rescore_one(root, record, tasks, bundle)
            result.rows.append(
                Row(record.task_id, record.attempt, record.status, record.score, score)
            )
            result.differences += found
        result.report = _report_problem(root, store, manifest)
    return result


def _report_problem(root: Path, store: RunStore, manifest: Manifest) -> str | None:
    """The report rendered again from the bundled records and manifest, against the bundled one.

    Release gate verdicts, appended to a gated run's report, are not rendered again: one may
    compare with a frozen baseline that is not in the bundle."""
    path = root / REPORT
    if not path.is_file():
        return None
    bundled = path.read_text(encoding="utf-8", errors="replace").splitlines()
    again = render(store, manifest.model_copy(update={"gates": None}))[3].splitlines()
    if manifest.gates is not None:
        bundled = bundled[: len(again)]
    for number, (was, now) in enumerate(zip(bundled, again, strict=False), start=1):
        if was != now:
            return f"{REPORT} line {number}: {was.strip()[:80]!r}, recomputed {now.strip()[:80]!r}"
    if len(bundled) != len(again):
        return f"{REPORT}: {len(bundled)} lines, recomputed {len(again)}"
    return None

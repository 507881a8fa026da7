"""The run directory: manifest, append-only task records, traces, report.

Records are appended one line at a time with an fsync each, so a run killed at any moment
loses at most the attempt in flight, and `--resume` can tell exactly which attempts exist.

The manifest is the schedule: exactly one record per (task, attempt) pair it names, attempts
"1".."N". A record for a pair that was never scheduled, or a second record for a pair, is
refused when appended and when read, so a record planted before the harness's own can never
become the one a report counts. A directory without a manifest is not a run: its records are
neither written nor read.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from pydantic import ValidationError

from endstate.errors import EndstateError
from endstate.manifest import Manifest
from endstate.records import TaskRecord

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
REPORT = "report.txt"
REPORT_HTML = "report.html"
TRACES = "traces"


Pair = tuple[str, str]


def scheduled_pairs(manifest: Manifest) -> frozenset[Pair]:
    """Every (task id, attempt) the manifest schedules: each task, attempts "1".."N"."""
    attempts = range(1, manifest.limits.attempts + 1)
    return frozenset((task, str(a)) for task in manifest.tasks for a in attempts)


class RunStore:
    """One run's directory on disk."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._scheduled: frozenset[Pair] | None = None
        self._written: set[Pair] | None = None  # seeded from disk before the first append
        self._lock = threading.RLock()

    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    @property
    def records_path(self) -> Path:
        return self.root / RECORDS

    def trace_dir(self, task_id: str, attempt: str) -> Path:
        path = self.root / TRACES / task_id / attempt
        path.mkdir(parents=True, exist_ok=True)
        return path

    def create(self, manifest: Manifest) -> None:
        if self.manifest_path.exists():
            raise EndstateError(f"{self.root}: already holds a run (use --resume {self.root})")
        self.root.mkdir(parents=True, exist_ok=True)
        self.write_manifest(manifest)
        self.records_path.touch()

    def write_manifest(self, manifest: Manifest) -> None:
        write_atomically(self.manifest_path, manifest.model_dump_json(indent=2) + "\n")
        self._scheduled = scheduled_pairs(manifest)

    def read_manifest(self) -> Manifest:
        if not self.manifest_path.exists():
            raise EndstateError(f"{self.root}: no {MANIFEST}; not a run directory")
        manifest = read_manifest_file(self.manifest_path)
        self._scheduled = scheduled_pairs(manifest)
        return manifest

    @property
    def scheduled(self) -> frozenset[Pair]:
        """The (task, attempt) pairs this run may hold, from the manifest (read once)."""
        if self._scheduled is None:
            self.read_manifest()
        assert self._scheduled is not None
        return self._scheduled

    def append(self, record: TaskRecord) -> None:
        """Append one record, fsync'd. Refused for an unscheduled or already written pair."""
        pair = (record.task_id, record.attempt)
        with self._lock:
            if pair not in self.scheduled:
                raise EndstateError(
                    f"{self.root}: refusing to record task {record.task_id!r} attempt "
                    f"{record.attempt!r}: not scheduled by {MANIFEST}"
                )
            if self._written is None:
                # First append of this store: cut a torn tail so the line starts clean, and
                # learn what is already there (refused outright if the file is not sound).
                self.read_records(repair=True)
            assert self._written is not None
            if pair in self._written:
                raise EndstateError(
                    f"{self.root}: refusing to record task {record.task_id!r} attempt "
                    f"{record.attempt!r}: already recorded in {RECORDS}"
                )
            line = record.model_dump_json() + "\n"
            try:
                with self.records_path.open("a", encoding="utf-8") as fh:
                    fh.write(line)
                    fh.flush()
                    os.fsync(fh.fileno())
            except BaseException:
                self._written = None  # a partial line may be on disk: re-read before the next
                raise
            self._written.add(pair)

    def read_records(self, repair: bool = False) -> list[TaskRecord]:
        """Every complete record, each for a scheduled (task, attempt) pair, at most once.

        A duplicate or unscheduled pair anywhere in the file is an error naming the line: no
        report is computed from such a file. A torn last line (killed mid-write) is dropped,
        and cut off the file when `repair` is set so appends continue on a clean line."""
        with self._lock:
            return self._read_records(repair)

    def _read_records(self, repair: bool) -> list[TaskRecord]:
        scheduled = self.scheduled
        if not self.records_path.exists():
            if repair:
                self._written = set()
            return []
        data = self.records_path.read_bytes()
        records: list[TaskRecord] = []
        seen: set[Pair] = set()
        good_end = 0
        offset = 0
        for raw in data.splitlines(keepends=True):
            offset += len(raw)
            if not raw.endswith(b"\n"):
                break
            line = len(records) + 1
            try:
                record = TaskRecord.model_validate_json(raw)
            except ValidationError:
                if offset == len(data):
                    break
                raise EndstateError(
                    f"{self.records_path}: line {line} is not a task record"
                ) from None
            pair = (record.task_id, record.attempt)
            if pair not in scheduled:
                raise EndstateError(
                    f"{self.records_path}: line {line}: task {record.task_id!r} attempt "
                    f"{record.attempt!r} was never scheduled by {MANIFEST}; refusing these records"
                )
            if pair in seen:
                raise EndstateError(
                    f"{self.records_path}: line {line}: duplicate record for task "
                    f"{record.task_id!r} attempt {record.attempt!r}; refusing these records"
                )
            seen.add(pair)
            records.append(record)
            good_end = offset
        if repair:  # the file is now clean: appends continue from exactly these pairs
            self._written = seen
        if repair and good_end != len(data):
            with self.records_path.open("r+b") as fh:
                fh.truncate(good_end)
                fh.flush()
                os.fsync(fh.fileno())
        return records

    def write_report(self, text: str) -> None:
        write_atomically(self.root / REPORT, text)

    def write_html(self, html: str) -> None:
        write_atomically(self.root / REPORT_HTML, html)

    def write_json(self, path: Path, data: object) -> None:
        write_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_manifest_file(path: Path) -> Manifest:
    """A manifest from disk; a missing or invalid file is one clear line naming it."""
    try:
        return Manifest.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise EndstateError(f"{path}: manifest file not found") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "$"
        raise EndstateError(f"{path}: not a run manifest ({where}: {first['msg']})") from None


def write_atomically(path: Path, text: str) -> None:
    """Write through a synced temporary file and a rename: a reader sees the old or the new."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)

"""The run directory: manifest, append-only task records, traces, report.

Records are appended one line at a time with an fsync each, so a run killed at any moment
loses at most the attempt in flight, and `--resume` can tell exactly which attempts exist.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import ValidationError

from endstate.errors import EndstateError
from endstate.records import TaskRecord
from endstate.runs.manifest import Manifest

MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
REPORT = "report.txt"
REPORT_HTML = "report.html"
TRACES = "traces"


class RunStore:
    """One run's directory on disk."""

    def __init__(self, root: Path) -> None:
        self.root = root

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
        _atomic_write(self.manifest_path, manifest.model_dump_json(indent=2) + "\n")

    def read_manifest(self) -> Manifest:
        if not self.manifest_path.exists():
            raise EndstateError(f"{self.root}: no {MANIFEST}; not a run directory")
        return read_manifest_file(self.manifest_path)

    def append(self, record: TaskRecord) -> None:
        line = record.model_dump_json() + "\n"
        with self.records_path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def read_records(self, repair: bool = False) -> list[TaskRecord]:
        """Every complete record. A torn last line (killed mid-write) is dropped, and cut off
        the file when `repair` is set so appends continue on a clean line."""
        if not self.records_path.exists():
            return []
        data = self.records_path.read_bytes()
        records: list[TaskRecord] = []
        good_end = 0
        offset = 0
        for raw in data.splitlines(keepends=True):
            offset += len(raw)
            if not raw.endswith(b"\n"):
                break
            try:
                records.append(TaskRecord.model_validate_json(raw))
            except ValidationError:
                if offset == len(data):
                    break
                raise EndstateError(
                    f"{self.records_path}: line {len(records) + 1} is not a task record"
                ) from None
            good_end = offset
        if repair and good_end != len(data):
            with self.records_path.open("r+b") as fh:
                fh.truncate(good_end)
                fh.flush()
                os.fsync(fh.fileno())
        return records

    def write_report(self, text: str) -> None:
        _atomic_write(self.root / REPORT, text)

    def write_html(self, html: str) -> None:
        _atomic_write(self.root / REPORT_HTML, html)

    def write_json(self, path: Path, data: object) -> None:
        _atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


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


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)

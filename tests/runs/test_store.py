"""The run directory: fsync'd appends, torn-line repair, manifest round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from endstate.errors import EndstateError
from endstate.records import TaskRecord
from endstate.runs.store import RunStore


def rec(task: str, attempt: str) -> TaskRecord:
    return TaskRecord(
        task_id=task,
        attempt=attempt,
        family="dme",
        tier="easy",
        status="failed",
        score=0,
        earned=0,
        weight=1,
    )


def test_appended_records_read_back_in_order(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    for i in range(3):
        store.append(rec("a", str(i)))
    assert [r.attempt for r in store.read_records()] == ["0", "1", "2"]


def test_a_torn_last_line_is_dropped_and_repaired(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.append(rec("a", "1"))
    store.append(rec("a", "2"))
    full = store.records_path.read_bytes()
    store.records_path.write_bytes(full + rec("a", "3").model_dump_json().encode()[:40])
    assert [r.attempt for r in store.read_records()] == ["1", "2"]
    assert store.records_path.read_bytes() != full
    store.read_records(repair=True)
    assert store.records_path.read_bytes() == full
    store.append(rec("a", "3"))
    assert [r.attempt for r in store.read_records()] == ["1", "2", "3"]


def test_a_corrupt_middle_line_is_an_error_naming_the_line(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.append(rec("a", "1"))
    with store.records_path.open("a") as fh:
        fh.write("garbage\n")
    store.append(rec("a", "3"))
    with pytest.raises(EndstateError, match="line 2 is not a task record"):
        store.read_records()


def test_missing_manifest_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EndstateError, match="not a run directory"):
        RunStore(tmp_path).read_manifest()

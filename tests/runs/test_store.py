"""The run directory: fsync'd appends, torn-line repair, manifest round trip, and exactly one
record per scheduled (task, attempt): forged or duplicate records are refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from endstate.build import BuildInfo
from endstate.errors import EndstateError
from endstate.manifest import (
    AgentPin,
    CorpusPin,
    EnvironmentPin,
    FirewallSummary,
    HostFacts,
    Manifest,
    RunLimits,
)
from endstate.records import TaskRecord
from endstate.runs.store import RunStore, scheduled_pairs


def rec(task: str, attempt: str, status: str = "failed") -> TaskRecord:
    passed = status == "passed"
    return TaskRecord(
        task_id=task,
        attempt=attempt,
        family="dme",
        tier="easy",
        status="passed" if passed else "failed",
        score=1 if passed else 0,
        earned=1 if passed else 0,
        weight=1,
    )


def manifest(tasks: tuple[str, ...] = ("a", "b"), attempts: int = 3) -> Manifest:
    return Manifest(
        run_id="20260101T000000Z-abcdef",
        mode="scored",
        created_at="2026-01-01T00:00:00+00:00",
        corpus=CorpusPin(name="c", root="/c", tree_hash="0" * 64, files={}, vendored=True),
        tasks=list(tasks),
        build=BuildInfo(version="0"),
        agent=AgentPin(spec="noop", kind="builtin", name="noop", scored=True),
        environment=EnvironmentPin(kind="embedded", fingerprint="f"),
        limits=RunLimits(attempts=attempts, workers=1, max_steps=10, time_limit=60),
        seed=0,
        firewall=FirewallSummary(verified=len(tasks)),
        host=HostFacts(hostname="h", platform="p", python="3", cpus=1),
    )


def report(store: RunStore) -> str:
    """The report as `endstate report` computes it (session imports the environments: lazily)."""
    from endstate.runs.session import render

    *_, text = render(store, store.read_manifest())
    return text


def new_store(tmp_path: Path, **kw: object) -> RunStore:
    store = RunStore(tmp_path / "run")
    store.create(manifest(**kw))  # type: ignore[arg-type]
    return store


def test_the_schedule_is_every_task_times_attempts_one_to_n() -> None:
    assert scheduled_pairs(manifest(("a", "b"), 2)) == {
        ("a", "1"),
        ("a", "2"),
        ("b", "1"),
        ("b", "2"),
    }


def test_appended_records_read_back_in_order(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    for i in range(1, 4):
        store.append(rec("a", str(i)))
    assert [r.attempt for r in store.read_records()] == ["1", "2", "3"]


def test_a_full_run_reads_back_and_reports(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    for attempt in ("1", "2", "3"):
        for task in ("a", "b"):
            store.append(rec(task, attempt, "passed" if task == "a" else "failed"))
    fresh = RunStore(store.root)  # a later reader: the schedule comes from the manifest on disk
    records = fresh.read_records()
    assert len(records) == 6
    assert {(r.task_id, r.attempt) for r in records} == scheduled_pairs(manifest())
    assert "Full-credit passes: 1/2" in report(fresh)


def test_a_duplicate_append_is_refused(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.append(rec("a", "1"))
    with pytest.raises(EndstateError, match=r"run: refusing .* 'a' attempt '1': already recorded"):
        store.append(rec("a", "1", "passed"))
    assert len(store.records_path.read_text().splitlines()) == 1


def test_a_duplicate_already_on_disk_is_refused_by_a_new_store(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.append(rec("a", "1"))
    with pytest.raises(EndstateError, match="already recorded"):
        RunStore(store.root).append(rec("a", "1"))


@pytest.mark.parametrize(("task", "attempt"), [("a", "4"), ("a", "0"), ("zz", "1"), ("a", "01")])
def test_an_unscheduled_append_is_refused(tmp_path: Path, task: str, attempt: str) -> None:
    store = new_store(tmp_path)
    with pytest.raises(EndstateError, match=rf"run: refusing .* {task!r} attempt {attempt!r}"):
        store.append(rec(task, attempt))
    assert store.records_path.read_text() == ""


def test_appending_without_a_manifest_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EndstateError, match="not a run directory"):
        RunStore(tmp_path).append(rec("a", "1"))
    assert not (tmp_path / "records.jsonl").exists()


def test_reading_records_without_a_manifest_is_refused(tmp_path: Path) -> None:
    (tmp_path / "records.jsonl").write_text(rec("a", "1").model_dump_json() + "\n")
    with pytest.raises(EndstateError, match="not a run directory"):
        RunStore(tmp_path).read_records()


REAL = [rec("a", "1"), rec("b", "1"), rec("a", "2")]


@pytest.mark.parametrize(
    ("lines", "line", "pair", "why"),
    [
        # planted before the harness's own record: the harness's line is the duplicate
        ([rec("a", "1", "passed"), *REAL], 2, ("a", "1"), "duplicate record"),
        # planted in the middle, before the real record for the pair
        ([REAL[0], rec("b", "1", "passed"), *REAL[1:]], 3, ("b", "1"), "duplicate record"),
        # planted in the middle, after the real record for the pair
        ([*REAL[:2], rec("a", "1", "passed"), REAL[2]], 3, ("a", "1"), "duplicate record"),
        ([rec("a", "9", "passed"), *REAL], 1, ("a", "9"), "never scheduled"),
        ([REAL[0], rec("ghost", "1", "passed"), *REAL[1:]], 2, ("ghost", "1"), "never scheduled"),
    ],
)
def test_a_forged_line_is_refused_on_read_naming_the_line(
    tmp_path: Path, lines: list[TaskRecord], line: int, pair: tuple[str, str], why: str
) -> None:
    store = new_store(tmp_path)
    store.records_path.write_text("".join(r.model_dump_json() + "\n" for r in lines))
    task, attempt = pair
    where = re.escape(f"{store.records_path}: line {line}: ")
    with pytest.raises(EndstateError, match=rf"{where}.*{task!r} attempt {attempt!r}") as caught:
        RunStore(store.root).read_records()
    assert why in str(caught.value)
    with pytest.raises(EndstateError, match=rf"refusing to report run .*{where}"):
        report(RunStore(store.root))
    with pytest.raises(EndstateError, match=where):  # `--resume` refuses it too
        RunStore(store.root).read_records(repair=True)
    with pytest.raises(EndstateError, match=where):  # and so does a fresh writer
        RunStore(store.root).append(rec("b", "3"))


def test_a_line_planted_mid_run_is_caught_when_the_report_reads(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.append(rec("a", "1"))
    with store.records_path.open("a") as fh:  # the intruder gets in before attempt ("b", "1")
        fh.write(rec("b", "1", "passed").model_dump_json() + "\n")
    store.append(rec("b", "1"))  # appends never re-read the file: the harness's own line lands
    with pytest.raises(EndstateError, match=r"line 3: duplicate record for task 'b' attempt '1'"):
        report(store)


def test_a_torn_last_line_is_dropped_and_repaired(tmp_path: Path) -> None:
    store = new_store(tmp_path)
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


def test_resume_after_a_torn_last_line_continues_and_refuses_what_exists(tmp_path: Path) -> None:
    store = new_store(tmp_path, tasks=("a",), attempts=3)
    store.append(rec("a", "1"))
    store.append(rec("a", "2"))
    full = store.records_path.read_bytes()
    store.records_path.write_bytes(full + rec("a", "3").model_dump_json().encode()[:40])
    resumed = RunStore(store.root)  # as `--resume` does: manifest, then repair
    resumed.read_manifest()
    done = {(r.task_id, r.attempt) for r in resumed.read_records(repair=True)}
    assert done == {("a", "1"), ("a", "2")}
    assert resumed.records_path.read_bytes() == full
    with pytest.raises(EndstateError, match="already recorded"):
        resumed.append(rec("a", "2"))
    resumed.append(rec("a", "3"))
    assert [r.attempt for r in RunStore(store.root).read_records()] == ["1", "2", "3"]


def test_first_append_of_a_new_store_cuts_a_torn_tail(tmp_path: Path) -> None:
    store = new_store(tmp_path, tasks=("a",), attempts=3)
    store.append(rec("a", "1"))
    full = store.records_path.read_bytes()
    store.records_path.write_bytes(full + b'{"task_id": "a", "att')
    RunStore(store.root).append(rec("a", "2"))
    assert [r.attempt for r in RunStore(store.root).read_records()] == ["1", "2"]


def test_a_corrupt_middle_line_is_an_error_naming_the_line(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.append(rec("a", "1"))
    with store.records_path.open("a") as fh:
        fh.write("garbage\n")
    store.append(rec("a", "3"))
    with pytest.raises(EndstateError, match="line 2 is not a task record"):
        store.read_records()


def test_missing_manifest_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EndstateError, match="not a run directory"):
        RunStore(tmp_path).read_manifest()

"""What a grid reports of each cell: task and subtask success with intervals, by category.

Each cell's records are read through the same path as its own report (`export.source.
load_run`), so a grid's figures can never disagree with the cells' reports: unrecorded attempts
count as unmeasurable, the headline is attempt 1 of each task.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from endstate.errors import EndstateError
from endstate.export.source import load_run
from endstate.grid.manifest import CellState, GridManifest
from endstate.records import TaskRecord
from endstate.report.subtasks import SubtaskSummary, summarize_subtasks
from endstate.report.summary import headline_records
from endstate.stats import cluster_interval


@dataclass(frozen=True)
class CellMeasures:
    """One finished cell's figures (`records` are its headline attempts)."""

    state: CellState
    run_dir: Path
    corpus: str  # the corpus pin: name and tree hash
    attempts: list[TaskRecord]  # every scheduled attempt (the cost is over all of them)
    records: list[TaskRecord]
    tasks: int
    passed: int
    unmeasurable: int
    interval: tuple[float, float]  # task success: bootstrap over tasks, never collapsed
    subtasks: SubtaskSummary | None

    @property
    def task_success(self) -> float:
        return self.passed / self.tasks if self.tasks else 0.0

    @property
    def subtask_success(self) -> float | None:
        return self.subtasks.overall.share if self.subtasks else None


def measure_cell(root: Path, state: CellState) -> CellMeasures:
    if state.run_dir is None:
        raise EndstateError(f"{root}: cell {state.id} has no run directory")
    run_dir = root / state.run_dir
    run = load_run(run_dir)
    head = headline_records(run.records)
    wins = [1.0 if r.passed else 0.0 for r in head]
    return CellMeasures(
        state=state,
        run_dir=run_dir,
        corpus=f"{run.manifest.corpus.name} {run.manifest.corpus.tree_hash}",
        attempts=list(run.records),
        records=head,
        tasks=len(head),
        passed=int(sum(wins)),
        unmeasurable=sum(r.status == "unmeasurable" for r in head),
        interval=cluster_interval(wins),
        subtasks=summarize_subtasks(head),
    )


def measure_grid(root: Path, manifest: GridManifest) -> tuple[list[CellMeasures], list[CellState]]:
    """The finished cells measured, and the cells that are not (shown as missing, not zero)."""
    done = [measure_cell(root, c) for c in manifest.cells if c.status == "done"]
    missing = [c for c in manifest.cells if c.status != "done"]
    return done, missing

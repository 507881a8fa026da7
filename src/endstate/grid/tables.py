"""The grid's tables, each written as Markdown and CSV beside the HTML page, so a figure in a
paper can be traced to a file and re-plotted without parsing HTML."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from endstate.grid.manifest import CellState
from endstate.grid.measures import CellMeasures
from endstate.subtask_categories import SUBTASK_CATEGORIES


@dataclass(frozen=True)
class Table:
    name: str  # file stem
    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    note: str = ""

    def markdown(self) -> str:
        def cell(text: str) -> str:
            return text.replace("|", "\\|").replace("\n", " ")

        lines = [f"## {self.title}", ""]
        if self.note:
            lines += [self.note, ""]
        lines.append("| " + " | ".join(cell(c) for c in self.columns) + " |")
        lines.append("|" + "|".join("---" for _ in self.columns) + "|")
        lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in self.rows]
        return "\n".join(lines) + "\n"

    def csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows(self.rows)
        return buffer.getvalue()


def write_tables(tables: Sequence[Table], folder: Path) -> list[Path]:
    """Each table as NAME.md and NAME.csv, and all of them in one tables.md."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for t in tables:
        for suffix, text in ((".md", t.markdown()), (".csv", t.csv())):
            path = folder / f"{t.name}{suffix}"
            path.write_text(text, encoding="utf-8")
            written.append(path)
    together = folder / "tables.md"
    together.write_text("\n".join(t.markdown() for t in tables), encoding="utf-8")
    return [together, *written]


def share(value: float | None, interval: tuple[float, float] | None) -> str:
    if value is None:
        return "no checks"
    if interval is None:
        return f"{value:.1%}"
    return f"{value:.1%} [{interval[0]:.1%}, {interval[1]:.1%}]"


def cells_table(done: Sequence[CellMeasures], missing: Sequence[CellState]) -> Table:
    rows = []
    for m in done:
        s = m.state
        sub = m.subtasks.overall if m.subtasks else None
        rows.append(
            [
                s.agent_name,
                s.prompt_mode,
                s.observation,
                str(m.tasks),
                str(m.passed),
                share(m.task_success, m.interval),
                share(sub.share if sub else None, sub.interval if sub else None),
                str(m.unmeasurable),
                s.run_dir or "",
            ]
        )
    for s in missing:
        rows.append(
            [
                s.agent_name,
                s.prompt_mode,
                s.observation,
                "",
                "",
                f"missing ({s.status})",
                "missing",
                "",
                s.run_dir or "",
            ]
        )
    return Table(
        "cells",
        "Task and subtask success by configuration",
        [
            "agent",
            "prompt mode",
            "observation",
            "tasks",
            "passed",
            "task success [95%]",
            "subtask success [95%]",
            "unmeasurable",
            "run",
        ],
        rows,
        "Task success: full-credit passes of attempt 1 of each task, bootstrap over tasks widened "
        "to the Wilson bounds. Subtask success: checks passed / checks, pooled over tasks, cluster "
        "bootstrap over tasks. A configuration that did not finish is missing, not zero.",
    )


def categories_table(done: Sequence[CellMeasures]) -> Table:
    rows = []
    for m in done:
        row = [m.state.agent_name, m.state.prompt_mode, m.state.observation]
        for category in SUBTASK_CATEGORIES:
            cell = m.subtasks.by_category.get(category) if m.subtasks else None
            row.append(
                share(cell.share, cell.interval) + f" ({cell.passed}/{cell.checks})"
                if cell is not None and cell.share is not None
                else "no checks"
            )
        rows.append(row)
    return Table(
        "categories",
        "Subtask success by category",
        ["agent", "prompt mode", "observation", *SUBTASK_CATEGORIES],
        rows,
        "Checks passed / checks of each subtask category, pooled over tasks "
        "(cluster bootstrap 95%).",
    )

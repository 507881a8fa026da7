"""The grid's tables, each written as Markdown and CSV beside the HTML page, so a figure in a
paper can be traced to a file and re-plotted without parsing HTML."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from endstate.grid.manifest import CellState
from endstate.grid.measures import CellMeasures
from endstate.report.tables_out import TextTable, csv_text, markdown
from endstate.subtask_categories import SUBTASK_CATEGORIES


@dataclass(frozen=True)
class NamedTables:
    """Tables written together as NAME.md and NAME.csv."""

    name: str
    tables: list[TextTable]


def write_tables(groups: Sequence[NamedTables], folder: Path) -> list[Path]:
    """Each group as NAME.md and NAME.csv, and every table in one tables.md."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for g in groups:
        for suffix, text in ((".md", markdown(g.tables)), (".csv", csv_text(g.tables))):
            path = folder / f"{g.name}{suffix}"
            path.write_text(text, encoding="utf-8")
            written.append(path)
    together = folder / "tables.md"
    together.write_text(markdown([t for g in groups for t in g.tables]), encoding="utf-8")
    return [together, *written]


def share(value: float | None, interval: tuple[float, float] | None) -> str:
    if value is None:
        return "no checks"
    if interval is None:
        return f"{value:.1%}"
    return f"{value:.1%} [{interval[0]:.1%}, {interval[1]:.1%}]"


CELL_COLUMNS = [
    "agent", "prompt mode", "observation", "tasks", "passed", "task success [95%]",
    "subtask success [95%]", "unmeasurable", "run",
]  # fmt: skip
CELL_NUMBERS = [
    "agent", "prompt_mode", "observation", "tasks", "passed", "task_success", "task_low",
    "task_high", "subtask_success", "subtask_low", "subtask_high", "unmeasurable", "run",
]  # fmt: skip


def _cell_row(m: CellMeasures) -> tuple[list[str], list[object]]:
    s = m.state
    sub = m.subtasks.overall if m.subtasks else None
    sub_share = sub.share if sub else None
    sub_low, sub_high = sub.interval if sub and sub.interval else (None, None)
    row = [
        s.agent_name, s.prompt_mode, s.observation, str(m.tasks), str(m.passed),
        share(m.task_success, m.interval), share(sub_share, sub.interval if sub else None),
        str(m.unmeasurable), s.run_dir or "",
    ]  # fmt: skip
    numbers: list[object] = [
        s.agent_name, s.prompt_mode, s.observation, m.tasks, m.passed, m.task_success,
        *m.interval, sub_share, sub_low, sub_high, m.unmeasurable, s.run_dir or "",
    ]  # fmt: skip
    return row, numbers


def cells_table(done: Sequence[CellMeasures], missing: Sequence[CellState]) -> TextTable:
    rows, numbers = [], []
    for m in done:
        row, nums = _cell_row(m)
        rows.append(row)
        numbers.append(nums)
    for s in missing:
        state = f"missing ({s.status})"
        rows.append([s.agent_name, s.prompt_mode, s.observation, "", "", state, "missing", "", ""])
        numbers.append([s.agent_name, s.prompt_mode, s.observation, *[None] * 10])
    note = (
        "Task success: full-credit passes of attempt 1 of each task, bootstrap over tasks "
        "widened to the Wilson bounds. Subtask success: checks passed / checks, pooled over "
        "tasks, cluster bootstrap over tasks. A configuration that did not finish is missing, "
        "not zero."
    )
    title = "Task and subtask success by configuration"
    return TextTable(title, CELL_COLUMNS, rows, [note], numbers, CELL_NUMBERS)


def categories_table(done: Sequence[CellMeasures]) -> TextTable:
    rows, numbers = [], []
    for m in done:
        row = [m.state.agent_name, m.state.prompt_mode, m.state.observation]
        nums: list[object] = list(row)
        for category in SUBTASK_CATEGORIES:
            cell = m.subtasks.by_category.get(category) if m.subtasks else None
            if cell is not None and cell.share is not None:
                row.append(share(cell.share, cell.interval) + f" ({cell.passed}/{cell.checks})")
                nums += [cell.passed, cell.checks]
            else:
                row.append("no checks")
                nums += [0, 0]
        rows.append(row)
        numbers.append(nums)
    columns = ["agent", "prompt_mode", "observation"]
    columns += [f"{c} {part}" for c in SUBTASK_CATEGORIES for part in ("passed", "checks")]
    note = "Checks passed / checks of each category, pooled over tasks (cluster bootstrap 95%)."
    return TextTable(
        "Subtask success by category",
        ["agent", "prompt mode", "observation", *SUBTASK_CATEGORIES],
        rows,
        [note],
        numbers,
        columns,
    )

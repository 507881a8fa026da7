"""Subtask success in the text report: tables beside task success, and the method in a line."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from endstate.report.subtasks import SubtaskCell, SubtaskSummary


def share_text(cell: SubtaskCell) -> str:
    """`passed/checks = share [low, high]`; a dash where there are no checks."""
    if cell.share is None or cell.interval is None:
        return "—"
    low, high = cell.interval
    return f"{cell.passed}/{cell.checks} = {cell.share:.1%} [{low:.1%}, {high:.1%}]"


def task_text(cell: SubtaskCell) -> str:
    rate = cell.task_success
    return "—" if rate is None else f"{cell.full_credit}/{cell.tasks} = {rate:.1%}"


def method_line(s: SubtaskSummary) -> str:
    """How the figures were counted and their interval made: said wherever they are shown."""
    parts = [
        "Subtask success = checks passed / checks on each task's first attempt, deterministic "
        "and judged checks alike; an unmeasurable or blocked attempt's checks count as not "
        "passed",
        f"{s.ungraded} ungraded rubric verdict(s) left out of both counts",
        f"{s.tasks_without_verdicts} task(s) without a verdict add no checks",
        f"{s.uncategorised} check(s) have no subtask category",
        f"interval: {s.confidence:.0%} percentile cluster bootstrap over tasks, "
        f"{s.resamples:,} resamples, seed {s.seed} (never narrower than Wilson with n = tasks)",
    ]
    return "; ".join(parts)


def _table(title: str, label: str, cells: dict[str, SubtaskCell]) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False)
    table.add_column(label)
    table.add_column("subtask success (checks)", justify="right")
    table.add_column("task success (full credit)", justify="right")
    for key, cell in cells.items():
        table.add_row(key, share_text(cell), task_text(cell))
    return table


def subtask_tables(s: SubtaskSummary) -> list[RenderableType]:
    return [
        _table("Subtask success beside task success", "scope", {"all tasks": s.overall}),
        Text(""),
        _table("Subtask success by family", "family", s.by_family),
        Text(""),
        _table("Subtask success by tier", "tier", s.by_tier),
        Text(""),
        _table(
            "Subtask success by subtask category (task success: tasks with such a check)",
            "category",
            s.by_category,
        ),
        Text(""),
        Text(method_line(s), style="dim", no_wrap=True, overflow="ignore"),
        Text(""),
    ]

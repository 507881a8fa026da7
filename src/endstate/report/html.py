"""The HTML report: the same numbers as the text report, with charts and the per-task record."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from jinja2 import Environment, PackageLoader, select_autoescape

from endstate import __version__
from endstate.records import TaskRecord
from endstate.report.charts import Bar, histogram, interval_bars
from endstate.report.disclosure import Disclosure
from endstate.report.model_loss import model_loss_line
from endstate.report.outcomes import section_view
from endstate.report.subtasks import SubtaskSummary
from endstate.report.subtasks_text import method_line, share_text, task_text
from endstate.report.summary import Cell, LegCell, Summary, headline_records
from endstate.report.text import leg_fraction, legs_note
from endstate.report.usage import cost_text
from endstate.stats import wilson_interval
from endstate.visible import for_template

_env = Environment(
    loader=PackageLoader("endstate.report", "pages"),
    autoescape=select_autoescape(["html", "j2"]),
    trim_blocks=True,
    lstrip_blocks=True,
    finalize=for_template,
)


def _bars(cells: dict[str, Cell]) -> list[Bar]:
    out = []
    for key, cell in cells.items():
        low, high = wilson_interval(cell.full_credit, cell.tasks)
        rate = cell.full_credit / cell.tasks if cell.tasks else 0.0
        out.append(Bar(key, rate, low, high, f" ({cell.full_credit}/{cell.tasks})"))
    return out


def _leg_bars(cells: dict[str, LegCell]) -> list[Bar]:
    """Share of legs correct per kind, without an interval: the legs of one task are not
    independent draws, so a binomial interval over legs would overstate the precision."""
    return [
        Bar(f"{kind} legs", cell.share or 0.0, note=f" ({cell.correct}/{cell.legs})")
        for kind, cell in cells.items()
        if cell.legs
    ]


def _subtask_charts(s: SubtaskSummary) -> list[str]:
    """One bar per subtask category, with its cluster-bootstrap interval, and the overall
    subtask rate beside the task rate."""
    categories = [
        Bar(key, cell.share, *cell.interval, note=f" ({cell.passed}/{cell.checks})")
        for key, cell in s.by_category.items()
        if cell.share is not None and cell.interval is not None
    ]
    overall = s.overall
    pair = []
    if overall.share is not None and overall.interval is not None:
        pair.append(Bar("subtasks", overall.share, *overall.interval))
    if overall.task_success is not None:
        low, high = wilson_interval(overall.full_credit, overall.tasks)
        pair.append(Bar("tasks", overall.task_success, low, high))
    charts = [interval_bars("Subtask vs task success (cluster bootstrap / Wilson 95%)", pair)]
    if categories:  # no check of the run carries a subtask category: no empty chart
        charts.append(
            interval_bars("Subtask success by category (cluster bootstrap 95%)", categories)
        )
    return charts


def _shown(record: TaskRecord) -> TaskRecord:
    """The record as displayed: a verdict read back from the judge cache says so, beside its
    majority ("judge majority 3/3 (cached)"); a verdict judged in this run carries no mark."""
    if not any(c.cached for c in record.checks):
        return record
    checks = [
        c.model_copy(update={"detail": f"{c.detail} (cached)".strip()}) if c.cached else c
        for c in record.checks
    ]
    return record.model_copy(update={"checks": checks})


def render_html(
    summary: Summary, disclosure: Disclosure, title: str, records: Sequence[TaskRecord]
) -> str:
    head = headline_records(records)
    charts = [
        interval_bars("Full-credit rate by family (Wilson 95%)", _bars(summary.by_family)),
        interval_bars("Full-credit rate by tier (Wilson 95%)", _bars(summary.by_tier)),
        histogram("Task scores, first attempt (partial credit)", [r.score for r in head]),
    ]
    if summary.subtasks is not None:
        charts += _subtask_charts(summary.subtasks)
    sections = [section_view(name, s) for name, s in summary.sections.items()]
    for _, view in sections:
        charts += view.charts
    if summary.by_leg_kind:
        charts.append(
            interval_bars("Errand legs correct, read vs write", _leg_bars(summary.by_leg_kind))
        )
    template = _env.get_template("report.html.j2")
    return template.render(
        title=title,
        summary=summary,
        disclosure=disclosure,
        charts=charts,
        leg_fraction=leg_fraction,
        sections=sections,
        legs_note=legs_note(summary),
        subtask_share=share_text,
        subtask_tasks=task_text,
        subtask_method=method_line(summary.subtasks) if summary.subtasks else "",
        model_loss=model_loss_line(summary.model_loss) if summary.model_loss else None,
        cost_text=cost_text,
        records=[_shown(r) for r in sorted(records, key=lambda r: (r.task_id, r.attempt))],
        generated=datetime.now(UTC).isoformat(timespec="seconds"),
        version=__version__,
    )

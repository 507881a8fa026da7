"""The text report: headline, breakdown tables, replicates, then the disclosure in line."""

from __future__ import annotations

import io

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from endstate.report.disclosure import Disclosure
from endstate.report.model_loss import model_loss_line
from endstate.report.outcomes import SectionView, section_view
from endstate.report.subtasks_text import subtask_tables
from endstate.report.summary import Cell, JudgeStats, LegCell, Summary
from endstate.report.usage import UsageCell, UsageSummary, cost_text
from endstate.visible import visible


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _cell_table(title: str, label: str, cells: dict[str, Cell]) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False)
    table.add_column(label)
    table.add_column("tasks", justify="right")
    table.add_column("full credit", justify="right")
    table.add_column("mean (partial credit)", justify="right")
    for key, cell in cells.items():
        table.add_row(key, str(cell.tasks), str(cell.full_credit), f"{cell.mean:.3f}")
    return table


def _grid_table(summary: Summary) -> Table:
    tiers = list(summary.by_tier)
    table = Table(
        title="By family × tier (full credit / tasks, mean)", title_justify="left", show_edge=False
    )
    table.add_column("family")
    for tier in tiers:
        table.add_column(tier, justify="right")
    for family, row in summary.by_family_tier.items():
        cells = []
        for tier in tiers:
            cell = row.get(tier)
            cells.append(f"{cell.full_credit}/{cell.tasks}, {cell.mean:.2f}" if cell else "—")
        table.add_row(family, *cells)
    return table


def leg_fraction(cell: LegCell | None) -> str:
    """A leg cell as `correct/legs (share)`; a dash where there are no legs of that kind."""
    if cell is None or not cell.legs or cell.share is None:
        return "—"
    return f"{cell.correct}/{cell.legs} ({_pct(cell.share)})"


def legs_note(summary: Summary) -> str:
    """Errand tasks left out of the leg counts, said beside them; empty when there are none."""
    cell = next(iter(summary.by_leg_kind.values()), None)
    n = cell.tasks_without_verdicts if cell else 0
    if not n:
        return ""
    return (
        f"{n} errand task(s) have no verdicts on their first attempt (unmeasurable or blocked "
        "before grading): their legs are unknown and not counted here"
    )


def _leg_tables(summary: Summary) -> list[RenderableType]:
    kinds = Table(title="By leg kind", title_justify="left", show_edge=False)
    for column in ("kind", "legs", "correct", "share"):
        kinds.add_column(column, justify="left" if column == "kind" else "right")
    for kind, cell in summary.by_leg_kind.items():
        share = "—" if cell.share is None else _pct(cell.share)
        kinds.add_row(kind, str(cell.legs), str(cell.correct), share)
    archetypes = Table(
        title="Errand legs by archetype (correct / legs)", title_justify="left", show_edge=False
    )
    archetypes.add_column("template")
    archetypes.add_column("read", justify="right")
    archetypes.add_column("write", justify="right")
    for template, cells in summary.by_template_leg_kind.items():
        archetypes.add_row(
            template, leg_fraction(cells.get("read")), leg_fraction(cells.get("write"))
        )
    parts: list[RenderableType] = [kinds, Text("")]
    if summary.by_template_leg_kind:
        parts += [archetypes, Text("")]
    if note := legs_note(summary):
        parts += [Text(note, style="dim", no_wrap=True, overflow="ignore"), Text("")]
    return parts


def headline(summary: Summary) -> Text:
    low, high = summary.interval
    mlow, mhigh = summary.mean_score_interval
    text = Text()
    text.append("Full-credit passes: ", style="bold")
    text.append(
        f"{summary.passes}/{summary.tasks} = {_pct(summary.pass_rate)} "
        f"[{_pct(low)}, {_pct(high)}] (Wilson 95%)\n",
        style="bold",
    )
    text.append(
        f"Mean score (partial credit): {summary.mean_score:.3f} [{mlow:.3f}, {mhigh:.3f}] "
        "(bootstrap 95% over tasks)\n"
    )
    text.append(
        f"Unmeasurable: {summary.unmeasurable}   Blocked: {summary.blocked}   "
        f"Flagged (ungraded points): {summary.flagged}"
    )
    if summary.model_loss is not None:
        text.append(f"\n{model_loss_line(summary.model_loss)}", style="bold")
    if summary.deterministic_passes is not None:
        text.append(
            f"\nSecondary, not a score: {summary.deterministic_passes}/{summary.tasks} tasks pass "
            "every deterministic check with their rubric checks left ungraded",
            style="dim",
        )
    if summary.judge is not None:
        text.append(f"\nJudge: {judge_line(summary.judge)}")
    return text


def judge_line(stats: JudgeStats) -> str:
    """The judge's variance and failures in one line: never left to the details."""
    ungraded = stats.verdicts - stats.graded
    parts = [
        f"{stats.graded} of {stats.verdicts} rubric verdicts graded",
        f"{stats.split} split (calls disagreed)",
    ]
    if stats.rejudged:
        parts.append(f"{stats.flips} of {stats.rejudged} re-judged flipped ({stats.flip_rate:.0%})")
    else:
        parts.append("variance not re-measured (--judge-rejudge N)")
    if ungraded:
        top, n = next(iter(stats.ungraded_reasons.items()))
        more = f"; {ungraded - n} for other reasons" if ungraded > n else ""
        parts.append(f"{ungraded} ungraded ({n}: {top}{more})")
    return ", ".join(parts)


def _replicates(summary: Summary) -> RenderableType | None:
    rep = summary.replicates
    if rep is None:
        return None
    table = Table(title="Replicates (never best-of-N)", title_justify="left", show_edge=False)
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("pass@1 (mean passes/attempts)", _pct(rep.pass_at_1))
    for k, value in rep.pass_hat_k.items():
        table.add_row(f"pass^{k} (unbiased)", _pct(value))
    table.add_row("reliable (passes all of ≥5)", "—" if rep.reliable is None else str(rep.reliable))
    return table


def _usage_table(title: str, label: str, cells: dict[str, UsageCell], total: UsageCell) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False)
    table.add_column(label)
    for column in ("attempts", "tokens in", "tokens out", "images", "retries", "failed calls"):
        table.add_column(column, justify="right")
    table.add_column("cost (USD)", justify="right")
    for key, cell in [*cells.items(), ("all", total)]:
        table.add_row(
            key,
            str(cell.attempts),
            f"{cell.input_tokens:,}",
            f"{cell.output_tokens:,}",
            str(cell.images),
            str(cell.retries),
            str(cell.failed_calls),
            cost_text(cell),
        )
    return table


def usage_tables(usage: UsageSummary) -> list[RenderableType]:
    return [
        _usage_table(
            "Model usage by family (all attempts)", "family", usage.by_family, usage.total
        ),
        Text(""),
        _usage_table("Model usage by tier (all attempts)", "tier", usage.by_tier, usage.total),
        Text(""),
    ]


def _disclosure(disclosure: Disclosure) -> Text:
    # One line per item, never hard-wrapped: a sentence must survive copying and searching.
    text = Text("Disclosure\n", style="bold", no_wrap=True, overflow="ignore")
    for i, item in enumerate(disclosure.items, start=1):
        text.append(f"{i}. {item.title}: ", style="bold")
        text.append(visible(item.text) + "\n")
    return text


def _section(title: str, view: SectionView) -> list[RenderableType]:
    """A system's outcome section: its tables, then its lines (charts are for HTML)."""
    parts: list[RenderableType] = []
    for t in view.tables:
        table = Table(title=t.title, title_justify="left", show_edge=False)
        for i, column in enumerate(t.columns):
            table.add_column(column, justify="right" if i in t.numeric else "left")
        for row in t.rows:
            table.add_row(*row)
        parts += [table, Text("")]
    parts += [Text(line, no_wrap=True, overflow="ignore") for line in view.lines]
    return [*parts, Text("")] if view.lines else parts


def renderable(summary: Summary, disclosure: Disclosure, title: str) -> Group:
    parts: list[RenderableType] = [
        Text(visible(title), style="bold underline", no_wrap=True, overflow="ignore"),
        headline(summary),
        Text(""),
        _cell_table("By family", "family", summary.by_family),
        Text(""),
        _cell_table("By tier", "tier", summary.by_tier),
        Text(""),
        _grid_table(summary),
        Text(""),
    ]
    if summary.subtasks is not None:
        parts += subtask_tables(summary.subtasks)
    if summary.by_template:
        parts += [_cell_table("By template", "template", summary.by_template), Text("")]
    if summary.by_leg_kind:
        parts += _leg_tables(summary)
    for name, section in summary.sections.items():
        parts += _section(*section_view(name, section))
    rep = _replicates(summary)
    if rep is not None:
        parts += [rep, Text("")]
    if summary.usage is not None:
        parts += usage_tables(summary.usage)
    parts.append(_disclosure(disclosure))
    return Group(*parts)


def render_text(summary: Summary, disclosure: Disclosure, title: str, width: int = 4000) -> str:
    """Plain text of the report, for files (no colour codes). Tables keep their natural
    width; text lines are never wrapped, so the console is as wide as any line."""
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None, markup=False)
    console.print(renderable(summary, disclosure, title))
    return visible(console.export_text())  # no hidden character from any cell reaches a file

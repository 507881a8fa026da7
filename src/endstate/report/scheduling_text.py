"""The scheduling-lab section of the text report: outcome counts, completion splits, first
broken boundaries and reliability, as Rich tables (the HTML report shows the same)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from endstate.report.scheduling import RateCell, SchedulingSummary


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _share(n: int, cases: int, interval: tuple[float, float]) -> str:
    low, high = interval
    share = n / cases if cases else 0.0
    return f"{n}/{cases} = {_pct(share)} [{_pct(low)}, {_pct(high)}]"


def rate(cell: RateCell) -> str:
    """The full-credit share with its interval."""
    return _share(cell.passed, cell.cases, cell.interval)


def completion(cell: RateCell) -> str:
    """The completed share (expected end state reached) with its interval."""
    return _share(cell.completed, cell.cases, cell.completion_interval)


def outcome_rows(s: SchedulingSummary) -> list[tuple[str, str]]:
    """(outcome, value) in the order the report lists them; shared with the HTML report."""
    return [
        ("task completion (expected end state)", completion(s.completion)),
        ("full credit (completed, nothing forbidden)", rate(s.completion)),
        ("policy violations", f"{s.policy_violations} case(s)"),
        ("unauthorized effects", f"{s.unauthorized_effects} case(s)"),
        ("false-success responses", f"{s.false_success} case(s)"),
        ("duplicate writes", f"{s.duplicate_writes} case(s)"),
        ("clarification burden", f"{s.clarification_turns} question(s) put to the user"),
        ("successful recovery", f"{s.recovered}/{s.faulted} case(s) after an unknown outcome"),
        ("unmeasurable", f"{s.unmeasurable} case(s), counted as not completed"),
    ]


def _split(title: str, label: str, cells: dict[str, RateCell]) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False)
    table.add_column(label)
    table.add_column("completed [Wilson 95%]", justify="right")
    table.add_column("full credit [Wilson 95%]", justify="right")
    for key, cell in cells.items():
        table.add_row(key, completion(cell), rate(cell))
    return table


def scheduling_tables(s: SchedulingSummary) -> list[RenderableType]:
    outcomes = Table(
        title="Scheduling outcomes (first attempts)", title_justify="left", show_edge=False
    )
    outcomes.add_column("outcome")
    outcomes.add_column("value", justify="right")
    for name, value in outcome_rows(s):
        outcomes.add_row(name, value)
    parts: list[RenderableType] = [outcomes, Text("")]
    for title, label, cells in (
        ("Scheduling: read-only vs write", "kind", s.by_kind),
        ("Scheduling: by family", "family", s.by_family),
        ("Scheduling: by connector state", "connector", s.by_connector),
        ("Scheduling: by language", "language", s.by_language),
    ):
        parts += [_split(title, label, cells), Text("")]
    bounds = Table(
        title="First broken boundary (failed cases)", title_justify="left", show_edge=False
    )
    bounds.add_column("boundary")
    bounds.add_column("cases", justify="right")
    for name, n in s.boundaries.items():
        bounds.add_row(name, str(n))
    parts += [bounds, Text("")]
    if s.reliability is not None:
        r = s.reliability
        low, high = r.all_trials_pass_interval
        line = (
            f"All trials pass: {_pct(r.all_trials_pass)} [{_pct(low)}, {_pct(high)}] of "
            f"{r.cases} case(s), {r.trials} trial(s) (bootstrap over cases, at least Wilson)"
        )
        hats = "; ".join(
            f"pass^{k} {_pct(v)} [{_pct(lo)}, {_pct(hi)}]"
            for k, (v, (lo, hi)) in r.pass_hat_k.items()
        )
        parts += [
            Text(line, no_wrap=True, overflow="ignore"),
            Text(hats, no_wrap=True, overflow="ignore"),
            Text(""),
        ]
    return parts

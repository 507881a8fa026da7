"""The scheduling lab's report section as a reader sees it: outcome counts, completion splits,
first broken boundaries and reliability, as plain tables the text and HTML reports render."""

from __future__ import annotations

from endstate.envs.systems.scheduling.outcomes import RateCell, SchedulingSummary
from endstate.report.charts import Bar, interval_bars
from endstate.report.outcomes import SectionTable, SectionView


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


def _split(title: str, label: str, cells: dict[str, RateCell]) -> SectionTable:
    rows = tuple((key, completion(cell), rate(cell)) for key, cell in cells.items())
    columns = (label, "completed [Wilson 95%]", "full credit [Wilson 95%]")
    return SectionTable(title, columns, rows, numeric=(1, 2))


def _family_chart(s: SchedulingSummary) -> str:
    bars = [
        Bar(k, c.passed / c.cases if c.cases else 0.0, *c.interval, f" ({c.passed}/{c.cases})")
        for k, c in s.by_family.items()
    ]
    return interval_bars("Scheduling: full credit by family (Wilson 95%)", bars)


def scheduling_view(s: SchedulingSummary) -> SectionView:
    """The section as tables (outcomes, the splits, first broken boundaries), the reliability
    lines and the by-family chart."""
    tables = [
        SectionTable(
            "Scheduling outcomes (first attempts)",
            ("outcome", "value"),
            tuple(outcome_rows(s)),
            numeric=(1,),
        )
    ]
    for title, label, cells in (
        ("Scheduling: read-only vs write", "kind", s.by_kind),
        ("Scheduling: by family", "family", s.by_family),
        ("Scheduling: by connector state", "connector", s.by_connector),
        ("Scheduling: by language", "language", s.by_language),
    ):
        tables.append(_split(title, label, cells))
    tables.append(
        SectionTable(
            "First broken boundary (failed cases)",
            ("boundary", "cases"),
            tuple((name, str(n)) for name, n in s.boundaries.items()),
            numeric=(1,),
        )
    )
    lines: list[str] = []
    if s.reliability is not None:
        r = s.reliability
        low, high = r.all_trials_pass_interval
        lines.append(
            f"All trials pass: {_pct(r.all_trials_pass)} [{_pct(low)}, {_pct(high)}] of "
            f"{r.cases} case(s), {r.trials} trial(s) (bootstrap over cases, at least Wilson)"
        )
        lines.append(
            "; ".join(
                f"pass^{k} {_pct(v)} [{_pct(lo)}, {_pct(hi)}]"
                for k, (v, (lo, hi)) in r.pass_hat_k.items()
            )
        )
    lines.append(
        "Counts come from the checks and from what the service recorded, never from the "
        "agent's reply. Boundary rules: docs/scheduling-lab.md."
    )
    return SectionView(tuple(tables), tuple(lines), (_family_chart(s),))

"""The head-to-head and cost figures as tables (tables_out.TextTable): text for people, raw
numbers for CSV, each table carrying the method and caveats that qualify it."""

from __future__ import annotations

from collections.abc import Sequence

from endstate.report.cost import QUANTITIES, CostCell, Quantity, RunCost
from endstate.report.pairwise import Difference, Pair, Pairwise
from endstate.report.tables_out import TextTable


def pair_columns(what: str) -> list[str]:
    return ["A", "B", "shared tasks", f"A {what}", f"B {what}", "A − B", "95% CI", "p", "p<0.05",
            "holm"]  # fmt: skip


PAIR_NUMBERS = [
    "a", "b", "shared_tasks", "a_passed", "a_total", "a_share", "b_passed", "b_total",
    "b_share", "difference", "ci_low", "ci_high", "p", "p_below_alpha", "holm", "note",
]  # fmt: skip


def _points(x: float) -> str:
    return f"{x * 100:+.1f} pp"


def _share(passed: int, total: int) -> str:
    return f"{passed}/{total} = {passed / total:.1%}" if total else "—"


def _pair_row(p: Pair, d: Difference | None, a: tuple[int, int], b: tuple[int, int]) -> list[str]:
    if d is None:
        why = p.note or "no counted checks"
        return [p.a, p.b, str(p.shared_tasks), _share(*a), _share(*b), why, "—", "—", "", ""]
    low, high = d.interval
    return [
        p.a,
        p.b,
        str(p.shared_tasks),
        _share(*a),
        _share(*b),
        _points(d.difference),
        f"[{low * 100:+.1f}, {high * 100:+.1f}] pp",
        f"{d.p_value:.4f}",
        "*" if d.significant else "",
        "*" if d.holm else "",
    ]


def _pair_numbers(
    p: Pair, d: Difference | None, a: tuple[int, int], b: tuple[int, int]
) -> list[object]:
    shares = [a[0], a[1], a[0] / a[1] if a[1] else None, b[0], b[1], b[0] / b[1] if b[1] else None]
    if d is None:
        return [p.a, p.b, p.shared_tasks, *shares, None, None, None, None, None, None, p.note]
    return [
        p.a, p.b, p.shared_tasks, *shares, d.difference, d.interval[0], d.interval[1],
        d.p_value, d.significant, d.holm, None,
    ]  # fmt: skip


def pairwise_tables(result: Pairwise) -> list[TextTable]:
    """Task success and subtask success, one row per pair (A = the earlier run given)."""
    notes = [result.method(), result.caveat()]
    if result.corpora_differ:
        pins = "; ".join(f"{name}: {pin}" for name, pin in result.corpora.items())
        notes.append(f"The runs are on different corpora (allowed): {pins}.")
    tables = []
    for title, measure, what in (
        ("Head-to-head: task success (tasks passed / shared tasks)", "task", "tasks passed"),
        ("Head-to-head: subtask success (checks passed / counted checks)", "subtask", "checks"),
    ):
        rows, numbers = [], []
        for p in result.pairs:
            if measure == "task":
                d = p.task
                a, b = (p.a_passed, p.shared_tasks), (p.b_passed, p.shared_tasks)
            else:
                d, a, b = p.subtask, p.a_checks, p.b_checks
            rows.append(_pair_row(p, d, a, b))
            numbers.append(_pair_numbers(p, d, a, b))
        tables.append(TextTable(title, pair_columns(what), rows, notes, numbers, PAIR_NUMBERS))
    return tables


COST_COLUMNS = [
    "run", "tier", "tasks", "attempts",
    "prompt tok/attempt", "prompt tok total", "completion tok/attempt", "completion tok total",
    "$/attempt", "$ total", "steps/attempt", "steps total", "wall s/attempt", "wall s total",
]  # fmt: skip
_FORMATS = {
    "prompt_tokens": "{:,.0f}",
    "completion_tokens": "{:,.0f}",
    "dollars": "${:,.4f}",
    "steps": "{:,.1f}",
    "seconds": "{:,.1f}",
}
_TOTAL_FORMATS = {**_FORMATS, "steps": "{:,.0f}", "dollars": "${:,.2f}"}


def _missing(q: Quantity) -> str:
    return f" ({q.missing} of {q.reported + q.missing} missing)" if q.missing else ""


def quantity_text(q: Quantity, mean_format: str, total_format: str) -> tuple[str, str]:
    """(mean, total): `missing` when no attempt reported it, and how many did not when some."""
    if q.total is None or q.mean is None:
        return "missing", "missing"
    return mean_format.format(q.mean) + _missing(q), total_format.format(q.total) + _missing(q)


def _cost_row(name: str, tier: str, c: CostCell) -> tuple[list[str], list[object]]:
    row = [name, tier, str(c.tasks), str(c.attempts)]
    numbers: list[object] = [name, tier, c.tasks, c.attempts]
    for q in QUANTITIES:
        quantity: Quantity = getattr(c, q)
        row += quantity_text(quantity, _FORMATS[q], _TOTAL_FORMATS[q])
        numbers += [quantity.mean, quantity.total, quantity.missing]
    return row, numbers


def cost_tables(costs: Sequence[RunCost]) -> list[TextTable]:
    """One table: each run by tier, then overall."""
    rows, numbers = [], []
    for run in costs:
        for tier, cell in [*run.by_tier.items(), ("overall", run.overall)]:
            row, nums = _cost_row(run.name, tier, cell)
            rows.append(row)
            numbers.append(nums)
    sources = "; ".join(f"{r.name}: {r.dollars_from}" for r in costs)
    notes = [
        "Over every attempt (what the run spent); a mean is over the attempts that reported "
        "the quantity. `missing`: no attempt reported it (no accounting, never zero); "
        "`(k of n missing)`: k attempts did not report it and are in neither mean nor total.",
        f"Dollars from: {sources}.",
    ]
    number_columns = ["run", "tier", "tasks", "attempts"] + [
        f"{q}_{part}" for q in QUANTITIES for part in ("mean", "total", "missing")
    ]
    return [TextTable("Cost by difficulty", COST_COLUMNS, rows, notes, numbers, number_columns)]

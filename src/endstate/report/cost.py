"""What a run cost, by difficulty and overall: tokens, dollars, steps and wall time.

Over every attempt, not only first ones: cost is what the run spent. Each quantity is counted
only over the attempts that reported it. An attempt whose agent kept no accounting (no model,
so no tokens; no price, so no dollars; a scheduled attempt never recorded, so nothing) is
*missing* for that quantity, never a zero: a zero would read as free. A cell where every
attempt is missing says "missing"; one where some are says how many, so that a total over the
rest is not taken for the whole.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from endstate.records import TaskRecord
from endstate.report.summary import tier_order

# The dollars of one attempt, from a price table; None where it cannot be priced.
Pricer = Callable[[TaskRecord], float | None]


class Quantity(BaseModel):
    """One quantity over some attempts: its total and mean over those that reported it."""

    reported: int = Field(description="Attempts that reported it.")
    missing: int = Field(description="Attempts that did not: in neither total nor mean.")
    total: float | None = Field(description="None when no attempt reported it.")

    @property
    def mean(self) -> float | None:
        return None if self.total is None else self.total / self.reported


class CostCell(BaseModel):
    tasks: int
    attempts: int
    prompt_tokens: Quantity
    completion_tokens: Quantity
    dollars: Quantity
    steps: Quantity
    seconds: Quantity = Field(description="Wall time of each attempt (attempt_seconds).")


class RunCost(BaseModel):
    """One run's cost, overall and by tier (easy, medium, hard, then any others by name)."""

    name: str
    dollars_from: str = Field(
        description="`records` (each attempt's own cost_usd) or the price table's path."
    )
    overall: CostCell
    by_tier: dict[str, CostCell]


QUANTITIES = ("prompt_tokens", "completion_tokens", "dollars", "steps", "seconds")


def _values(records: Sequence[TaskRecord], pricer: Pricer | None) -> dict[str, list[float | None]]:
    """Each quantity of each attempt, None where it was not reported."""
    out: dict[str, list[float | None]] = {q: [] for q in QUANTITIES}
    for r in records:
        f = r.facts
        out["prompt_tokens"].append(None if f is None else f.prompt_tokens)
        out["completion_tokens"].append(None if f is None else f.completion_tokens)
        if pricer is not None:
            out["dollars"].append(None if f is None else pricer(r))
        else:
            out["dollars"].append(None if f is None else f.cost_usd)
        out["steps"].append(None if f is None else f.steps)
        out["seconds"].append(None if f is None else f.attempt_seconds)
    return out


def _quantity(values: Sequence[float | None]) -> Quantity:
    present = [v for v in values if v is not None]
    return Quantity(
        reported=len(present),
        missing=len(values) - len(present),
        total=float(sum(present)) if present else None,
    )


def cost_cell(records: Sequence[TaskRecord], pricer: Pricer | None = None) -> CostCell:
    values = _values(records, pricer)
    return CostCell(
        tasks=len({r.task_id for r in records}),
        attempts=len(records),
        **{q: _quantity(v) for q, v in values.items()},
    )


def run_cost(
    name: str,
    records: Sequence[TaskRecord],
    pricer: Pricer | None = None,
    dollars_from: str = "records",
) -> RunCost:
    """`pricer`, when given, prices every attempt (a price table); else each record's own
    cost_usd counts."""
    tiers: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in records:
        tiers[r.tier].append(r)
    return RunCost(
        name=name,
        dollars_from=dollars_from,
        overall=cost_cell(records, pricer),
        by_tier={t: cost_cell(tiers[t], pricer) for t in sorted(tiers, key=tier_order)},
    )

"""What the agent's model consumed: tokens, images, retries and cost, by family and by tier.

Over every attempt, not only first ones: cost is what the run spent. Shown only when some
attempt reported usage, so reports of agents without a model are unchanged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from pydantic import BaseModel, Field

from endstate.records import TaskRecord


class UsageCell(BaseModel):
    attempts: int = Field(description="Attempts that reported usage.")
    input_tokens: int
    output_tokens: int
    images: int
    retries: int
    failed_calls: int
    priced: int = Field(description="Attempts with a cost (their model is in the price table).")
    cost_usd: float | None = Field(description="Sum over priced attempts; None when none was.")


class UsageSummary(BaseModel):
    total: UsageCell
    by_family: dict[str, UsageCell]
    by_tier: dict[str, UsageCell]


def _reported(record: TaskRecord) -> bool:
    facts = record.facts
    return facts is not None and (facts.model_calls is not None or facts.prompt_tokens is not None)


def _cell(records: Sequence[TaskRecord]) -> UsageCell:
    facts = [r.facts for r in records if r.facts is not None]
    costs = [f.cost_usd for f in facts if f.cost_usd is not None]
    return UsageCell(
        attempts=len(facts),
        input_tokens=sum(f.prompt_tokens or 0 for f in facts),
        output_tokens=sum(f.completion_tokens or 0 for f in facts),
        images=sum(f.images or 0 for f in facts),
        retries=sum(f.model_retries or 0 for f in facts),
        failed_calls=sum(f.model_failed_calls or 0 for f in facts),
        priced=len(costs),
        cost_usd=round(sum(costs), 6) if costs else None,
    )


def summarize_usage(
    records: Sequence[TaskRecord], tier_key: dict[str, tuple[int, str]] | None = None
) -> UsageSummary | None:
    """Usage over the attempts that reported it; None when none did."""
    used = [r for r in records if _reported(r)]
    if not used:
        return None
    families: dict[str, list[TaskRecord]] = defaultdict(list)
    tiers: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in used:
        families[r.family].append(r)
        tiers[r.tier].append(r)
    order = tier_key or {}
    return UsageSummary(
        total=_cell(used),
        by_family={k: _cell(v) for k, v in sorted(families.items())},
        by_tier={
            k: _cell(v)
            for k, v in sorted(tiers.items(), key=lambda kv: order.get(kv[0], (3, kv[0])))
        },
    )


def cost_text(cell: UsageCell) -> str:
    """Dollars, marked when only some attempts of the cell could be priced."""
    if cell.cost_usd is None:
        return "—"
    partial = f" ({cell.priced}/{cell.attempts} priced)" if cell.priced < cell.attempts else ""
    return f"${cell.cost_usd:.4f}{partial}"

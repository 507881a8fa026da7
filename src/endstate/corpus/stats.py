"""What a corpus measures: task mix, check types, weights and the rubric-judged share."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from pydantic import BaseModel, Field

from endstate.corpus.model import Task

JUDGE = "llm_judge"


class CorpusStats(BaseModel):
    tasks: int
    by_family_tier: dict[str, dict[str, int]] = Field(description="family -> tier -> tasks")
    checks_by_type: dict[str, int]
    weight_by_type: dict[str, float]
    weight: float
    rubric_share: float = Field(description="Share of all weight graded by a judge.")
    rubric_share_by_family: dict[str, float]
    categories: dict[str, int] = Field(description="check category -> number of checks")


def corpus_stats(tasks: Sequence[Task]) -> CorpusStats:
    grid: dict[str, Counter[str]] = defaultdict(Counter)
    checks: Counter[str] = Counter()
    weights: defaultdict[str, float] = defaultdict(float)
    family_weight: defaultdict[str, float] = defaultdict(float)
    family_rubric: defaultdict[str, float] = defaultdict(float)
    categories: Counter[str] = Counter()
    for task in tasks:
        grid[task.family][task.tier] += 1
        for check in task.grading.checks:
            checks[check.type] += 1
            weights[check.type] += check.points
            family_weight[task.family] += check.points
            if check.type == JUDGE:
                family_rubric[task.family] += check.points
            categories[check.category or "(none)"] += 1
    total = sum(weights.values())
    return CorpusStats(
        tasks=len(tasks),
        by_family_tier={f: dict(sorted(c.items())) for f, c in sorted(grid.items())},
        checks_by_type=dict(sorted(checks.items())),
        weight_by_type={k: float(v) for k, v in sorted(weights.items())},
        weight=float(total),
        rubric_share=weights[JUDGE] / total if total else 0.0,
        rubric_share_by_family={
            f: family_rubric[f] / w if w else 0.0 for f, w in sorted(family_weight.items())
        },
        categories=dict(categories.most_common()),
    )

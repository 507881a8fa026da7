"""Subtask success: the share of checks passed, pooled over tasks, next to task success.

A task passes only when every check does; the benchmark's central finding is how far apart
the two rates are. What counts, on the first attempt of every task in scope (the headline
records):
- every check verdict, deterministic and judged alike (jmespath, rubric, errand legs);
- a rubric verdict left ungraded (no judge, or the judge failed) is left out of both counts
  and its number disclosed: it was never graded, so neither a pass nor a fail;
- the verdicts of an unmeasurable or blocked attempt count as not passed; an attempt with no
  verdicts at all adds no checks (its checks are unknown) and is disclosed.

Checks of one task are not independent, so the interval is a percentile cluster bootstrap
over tasks (a task's checks are resampled together), seeded, its resample count disclosed,
widened where it would collapse to a point (every task agreeing) to the Wilson bounds of the
same share with the number of tasks as n; never a binomial interval over checks."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field

from endstate.records import CheckVerdict, TaskRecord
from endstate.stats import wilson_of_mean
from endstate.subtask_categories import SUBTASK_CATEGORIES, subtask_category_of

RESAMPLES = 2_000
SEED = 0
CONFIDENCE = 0.95


class SubtaskCell(BaseModel):
    """Checks passed / checks over some tasks, beside those tasks' full-credit rate."""

    tasks: int = Field(description="Tasks with at least one counted check here.")
    full_credit: int = Field(description="Of those tasks, how many passed in full.")
    checks: int
    passed: int
    share: float | None = Field(description="passed / checks; None when there are no checks.")
    interval: tuple[float, float] | None = Field(
        default=None, description="Cluster bootstrap over tasks; None when there are no checks."
    )

    @property
    def task_success(self) -> float | None:
        return self.full_credit / self.tasks if self.tasks else None


class SubtaskSummary(BaseModel):
    """Subtask success overall, by family, by tier and by the six subtask categories."""

    overall: SubtaskCell
    by_family: dict[str, SubtaskCell]
    by_tier: dict[str, SubtaskCell]
    by_category: dict[str, SubtaskCell] = Field(
        description="Each of the six categories, in the benchmark's order (empty cells kept)."
    )
    uncategorised: int = Field(
        description="Counted checks with no subtask category: in `overall`, in no category."
    )
    ungraded: int = Field(description="Rubric verdicts left ungraded, in no count.")
    tasks_without_verdicts: int = Field(
        description="Headline tasks with no verdict at all (lost before grading): no checks."
    )
    resamples: int = RESAMPLES
    seed: int = SEED
    confidence: float = CONFIDENCE


def counted(record: TaskRecord) -> list[tuple[CheckVerdict, bool]]:
    """The record's counted verdicts, each with whether it counts as passed."""
    graded = record.status not in ("unmeasurable", "blocked")
    return [(c, graded and c.outcome == "pass") for c in record.checks if c.outcome != "ungraded"]


def _cell(rows: Sequence[tuple[bool, int, int]], rng_seed: int = SEED) -> SubtaskCell:
    """rows: (task passed, checks passed, checks) for each task with checks here."""
    passed = np.array([p for _, p, _ in rows], dtype=float)
    total = np.array([n for _, _, n in rows], dtype=float)
    checks = int(total.sum())
    share = float(passed.sum() / checks) if checks else None
    interval = None
    if checks:
        rng = np.random.default_rng(rng_seed)
        pick = rng.integers(0, len(rows), size=(RESAMPLES, len(rows)))
        num, den = passed[pick].sum(axis=1), total[pick].sum(axis=1)
        ratios = num[den > 0] / den[den > 0]
        alpha = (1 - CONFIDENCE) / 2
        low, high = float(np.quantile(ratios, alpha)), float(np.quantile(ratios, 1 - alpha))
        # Where every task agrees the bootstrap is a point: widen it to the Wilson bounds of
        # the same share with the task count as n, as stats.cluster_interval does.
        w_low, w_high = wilson_of_mean(passed.sum() / checks, len(rows), CONFIDENCE)
        interval = (min(low, w_low), max(high, w_high))
    return SubtaskCell(
        tasks=len(rows),
        full_credit=sum(ok for ok, _, _ in rows),
        checks=checks,
        passed=int(passed.sum()),
        share=share,
        interval=interval,
    )


def _rows(
    records: Sequence[TaskRecord], category: str | None = None
) -> list[tuple[bool, int, int]]:
    rows = []
    for r in records:
        kept = [
            ok for c, ok in counted(r) if category is None or subtask_category_of(c) == category
        ]
        if kept:
            rows.append((r.passed, sum(kept), len(kept)))
    return rows


def summarize_subtasks(
    head: Sequence[TaskRecord], tier_order: Sequence[str] = ()
) -> SubtaskSummary | None:
    """Over headline records (tiers shown in `tier_order`, others after, by name); None when
    none of them holds a verdict."""
    if not any(r.checks for r in head):
        return None
    families: dict[str, list[TaskRecord]] = defaultdict(list)
    tiers: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in head:
        families[r.family].append(r)
        tiers[r.tier].append(r)
    verdicts = [c for r in head for c, _ in counted(r)]
    return SubtaskSummary(
        overall=_cell(_rows(head)),
        by_family={k: _cell(_rows(v)) for k, v in sorted(families.items())},
        by_tier={k: _cell(_rows(tiers[k])) for k in _ordered(tiers, tier_order)},
        by_category={k: _cell(_rows(head, k)) for k in SUBTASK_CATEGORIES},
        uncategorised=sum(subtask_category_of(c) is None for c in verdicts),
        ungraded=sum(c.outcome == "ungraded" for r in head for c in r.checks),
        tasks_without_verdicts=sum(not r.checks for r in head),
    )


def _ordered(keys: dict[str, list[TaskRecord]], order: Sequence[str]) -> list[str]:
    return [k for k in order if k in keys] + sorted(k for k in keys if k not in order)

"""Paired statistics on the same tasks run twice: context for a comparison, never its verdict.

Exact McNemar on pass/fail pairs (only the discordant tasks carry information) and a percentile
bootstrap interval on the mean per-task score difference, resampling tasks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field

from endstate.stats import bootstrap_mean


class PairedStats(BaseModel):
    tasks: int
    base_passes: int
    run_passes: int
    lost: int = Field(description="Passed in the baseline, not now (McNemar's b).")
    gained: int = Field(description="Passed now, not in the baseline (McNemar's c).")
    mcnemar_p: float = Field(description="Exact two-sided McNemar p-value (1.0 with no change).")
    mean_difference: float = Field(description="Mean over tasks of run score - baseline score.")
    interval: tuple[float, float] = Field(description="Paired bootstrap 95% interval.")


def mcnemar_exact(lost: int, gained: int) -> float:
    """Two-sided exact McNemar: a binomial test of the discordant pairs against 1/2."""
    if lost + gained == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(min(lost, gained), lost + gained, 0.5).pvalue)


def paired_stats(pairs: Sequence[tuple[bool, bool, float, float]]) -> PairedStats:
    """`pairs`: per task (baseline passed, run passed, baseline score, run score)."""
    lost = sum(b and not r for b, r, _, _ in pairs)
    gained = sum(r and not b for b, r, _, _ in pairs)
    diffs = [rs - bs for _, _, bs, rs in pairs]
    return PairedStats(
        tasks=len(pairs),
        base_passes=sum(b for b, _, _, _ in pairs),
        run_passes=sum(r for _, r, _, _ in pairs),
        lost=lost,
        gained=gained,
        mcnemar_p=mcnemar_exact(lost, gained),
        mean_difference=float(np.mean(diffs)) if diffs else 0.0,
        interval=bootstrap_mean(diffs),  # over per-task differences: a paired interval
    )

"""Statistics reported honestly: Wilson intervals, unbiased pass^k, bootstrap over tasks."""

from __future__ import annotations

import math
from collections.abc import Sequence
from math import comb

import numpy as np


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion (no continuity correction)."""
    if trials <= 0:
        return (0.0, 1.0)
    from scipy.stats import binomtest  # deferred: SciPy costs most of the CLI's start-up

    ci = binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def pass_hat_k(outcomes: Sequence[tuple[int, int]], k: int) -> float:
    """Unbiased pass^k: mean over tasks of C(c, k) / C(n, k), for (n attempts, c passes)."""
    usable = [(n, c) for n, c in outcomes if n >= k]
    if not usable:
        raise ValueError(f"pass^{k} needs at least {k} attempts of some task")
    return float(np.mean([comb(c, k) / comb(n, k) for n, c in usable]))


def bootstrap_mean(
    values: Sequence[float], resamples: int = 10_000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval for a mean over tasks."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (0.0, 0.0)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    alpha = (1 - confidence) / 2
    return (float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha)))


def wilson_of_mean(mean: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score bounds for a mean of n values in [0, 1] (the count may be fractional, as a
    mean of pass^k values is)."""
    if n <= 0:
        return (0.0, 1.0)
    from scipy.stats import norm  # deferred, as in wilson_interval

    z = float(norm.ppf(1 - (1 - confidence) / 2))
    p = min(1.0, max(0.0, mean))
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / scale
    return (max(0.0, centre - half), min(1.0, centre + half))


def cluster_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """A mean over cases with an interval that never collapses: the percentile bootstrap over
    cases, widened to the Wilson bounds of the same mean and count. Where every case agrees the
    bootstrap is a point ([0, 0] or [1, 1]), which would claim certainty five cases cannot give."""
    if not values:
        return (0.0, 1.0)
    low, high = bootstrap_mean(values, confidence=confidence)
    w_low, w_high = wilson_of_mean(sum(values) / len(values), len(values), confidence)
    return (min(low, w_low), max(high, w_high))

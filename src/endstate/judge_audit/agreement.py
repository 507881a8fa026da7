"""Agreement between two graders over the same items: the share of items they grade alike,
with its Wilson 95% interval, and Cohen's kappa (that share corrected for the agreement two
graders would reach by chance, given how often each says pass)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from endstate.stats import wilson_interval


@dataclass(frozen=True)
class Agreement:
    n: int
    agree: int
    share: float | None  # None: no items
    interval: tuple[float, float] | None
    kappa: float | None  # None: undefined (no items, or both graders gave one label only)

    def as_json(self) -> dict[str, object]:
        return {
            "items": self.n,
            "agree": self.agree,
            "agreement": self.share,
            "interval_95": list(self.interval) if self.interval else None,
            "kappa": self.kappa,
        }


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """(p_o - p_e) / (1 - p_e): p_o the observed share alike, p_e the chance share, the sum
    over labels of the product of each grader's share of that label. Undefined (None) when
    p_e is 1: both graders used a single, same label, and chance explains all agreement."""
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    chance = sum(first[label] * second[label] for label in first) / (n * n)
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)


def agreement(pairs: Sequence[tuple[str, str]]) -> Agreement:
    """How two graders' labels of the same items agree; `pairs` is (first, second) per item."""
    n = len(pairs)
    agree = sum(a == b for a, b in pairs)
    if n == 0:
        return Agreement(0, 0, None, None, None)
    return Agreement(n, agree, agree / n, wilson_interval(agree, n), cohen_kappa(pairs))

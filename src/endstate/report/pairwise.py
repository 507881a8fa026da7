"""Head-to-head: every pair of runs compared on the tasks both ran, with a paired bootstrap.

For runs A and B, on their shared task ids (the headline attempt of each, as in every report):
the difference A - B in task success (share of tasks passed) and in subtask success (share of
counted checks passed, pooled over tasks). Both sides are resampled together, task by task: a
resample draws task ids with replacement and scores A and B on the same draw, so what the two
runs have in common (the same hard tasks) cancels instead of widening the interval. A
resample's subtask success pools the checks of the tasks it drew, since one task's checks are
not independent of each other.

The interval is the 2.5th and 97.5th percentiles of the resampled differences. The two-sided
p-value is twice the smaller tail share of resampled differences at or beyond zero, counted
with the usual +1 so that it is never 0 (a finite number of resamples cannot show less than
1/(resamples+1)), and capped at 1: it falls under 0.05 when, and in effect only when, the
interval leaves out zero. Every pair is its own test: with k pairs some will cross 0.05 by
chance, so the tables also say which survive Holm's step-down correction and give the
Bonferroni threshold. Seeded: each pair draws from its own generator seeded with `seed`, so a
pair's figures do not depend on which other runs are in the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field

from endstate.errors import EndstateError
from endstate.records import TaskRecord
from endstate.report.subtasks import counted
from endstate.report.summary import headline_records

RESAMPLES = 10_000
SEED = 0
CONFIDENCE = 0.95
ALPHA = 0.05
_CHUNK = 2_000  # resamples drawn at once: bounds memory at _CHUNK x tasks indices


@dataclass(frozen=True)
class NamedRun:
    """A run as the head-to-head sees it: a name, its records, and its corpus pin."""

    name: str
    records: Sequence[TaskRecord]
    corpus: str  # the corpus pin, e.g. `endstate-builtin 98412f99…`: equal pins, same tasks


class Difference(BaseModel):
    """One measure of one pair: A's share, B's share, A - B with its interval and p-value."""

    a: float
    b: float
    difference: float
    interval: tuple[float, float]
    p_value: float
    significant: bool = Field(description="p < alpha, uncorrected.")
    holm: bool = Field(
        default=False, description="Still significant after Holm's correction over the k pairs."
    )


class Pair(BaseModel):
    a: str
    b: str
    shared_tasks: int
    task: Difference | None = Field(description="None: no shared tasks.")
    subtask: Difference | None = Field(
        description="None: no shared tasks, or no counted checks on one side."
    )
    a_checks: tuple[int, int] = Field(default=(0, 0), description="A's checks (passed, total).")
    b_checks: tuple[int, int] = Field(default=(0, 0), description="B's checks (passed, total).")
    a_passed: int = 0
    b_passed: int = 0

    @property
    def note(self) -> str | None:
        if not self.shared_tasks:
            return "no shared tasks"
        return None


class Pairwise(BaseModel):
    """Every pair of the runs given, in their order: (first, second), (first, third), …"""

    runs: list[str]
    pairs: list[Pair]
    resamples: int
    seed: int
    confidence: float = CONFIDENCE
    alpha: float = ALPHA
    corpora: dict[str, str] = Field(description="Each run's corpus pin.")

    @property
    def tested(self) -> int:
        """k: the pairs with shared tasks, each a test."""
        return sum(p.shared_tasks > 0 for p in self.pairs)

    @property
    def corpora_differ(self) -> bool:
        return len(set(self.corpora.values())) > 1

    def method(self) -> str:
        return (
            f"Paired percentile bootstrap over shared tasks (headline attempt = first attempt "
            f"of each task): {self.resamples:,} resamples, seed {self.seed}, "
            f"{self.confidence:.0%} interval; two-sided p = 2 x the smaller share of resampled "
            f"differences on either side of zero ((count + 1) / (resamples + 1)), capped at 1; "
            f"subtask success pools the counted checks of the resampled tasks."
        )

    def caveat(self) -> str:
        """Said wherever the tables are shown: the tests are many and nothing corrects them."""
        k = self.tested
        if k == 0:
            return "No pair shares a task: nothing was tested."
        k_sub = sum(p.subtask is not None for p in self.pairs)
        if k_sub == k:
            tests = f"{k} pair(s) tested per measure"
            threshold = f"p < {self.alpha / k:.4g}"
        else:  # some pairs had no counted checks: fewer subtask tests
            tests = f"{k} pair(s) tested for task success and {k_sub} for subtask success"
            threshold = f"p < {self.alpha / k:.4g} for task success" + (
                f" and p < {self.alpha / k_sub:.4g} for subtask success" if k_sub else ""
            )
        return (
            f"{tests}, no correction applied to p or to the `p<{self.alpha:g}` mark: with "
            f"many pairs some differences cross {self.alpha:g} by chance. `holm` marks the "
            f"pairs still significant under Holm's step-down correction at family-wise "
            f"{self.alpha:g} (per table); the Bonferroni threshold is {threshold}."
        )


def check_corpora(runs: Sequence[NamedRun], allow_different: bool) -> None:
    """Refuse runs on different corpora unless allowed: their shared task ids may not be the
    same tasks."""
    first = runs[0]
    for other in runs[1:]:
        if other.corpus != first.corpus and not allow_different:
            raise EndstateError(
                f"runs on different corpora: {first.name} ({first.corpus}) and {other.name} "
                f"({other.corpus}); pass --allow-different-corpora to compare them on their "
                "shared task ids"
            )


def pairwise(
    runs: Sequence[NamedRun],
    resamples: int = RESAMPLES,
    seed: int = SEED,
    allow_different_corpora: bool = False,
) -> Pairwise:
    """Every pair of `runs` (at least two, distinct names) compared on its shared tasks."""
    if len(runs) < 2:
        raise EndstateError(f"a head-to-head needs at least two runs, got {len(runs)}")
    names = [r.name for r in runs]
    if len(set(names)) < len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise EndstateError(f"run names must differ: {', '.join(twice)} given twice")
    if resamples < 1:
        raise EndstateError(f"--resamples must be at least 1, got {resamples}")
    check_corpora(runs, allow_different_corpora)
    heads = [{r.task_id: r for r in headline_records(run.records)} for run in runs]
    pairs = [
        compare_pair(runs[i].name, runs[j].name, heads[i], heads[j], resamples, seed)
        for i in range(len(runs))
        for j in range(i + 1, len(runs))
    ]
    _mark_holm([p.task for p in pairs if p.task is not None], ALPHA)
    _mark_holm([p.subtask for p in pairs if p.subtask is not None], ALPHA)
    return Pairwise(
        runs=names,
        pairs=pairs,
        resamples=resamples,
        seed=seed,
        corpora={r.name: r.corpus for r in runs},
    )


def compare_pair(
    a_name: str,
    b_name: str,
    a: dict[str, TaskRecord],
    b: dict[str, TaskRecord],
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Pair:
    """A against B on the tasks both have (headline record per task id on each side)."""
    shared = sorted(a.keys() & b.keys())
    if not shared:
        return Pair(a=a_name, b=b_name, shared_tasks=0, task=None, subtask=None)
    a_pass, a_num, a_den = _columns([a[t] for t in shared])
    b_pass, b_num, b_den = _columns([b[t] for t in shared])
    rng = np.random.default_rng(seed)
    task_diffs: list[np.ndarray] = []
    sub_diffs: list[np.ndarray] = []
    for start in range(0, resamples, _CHUNK):
        pick = rng.integers(0, len(shared), size=(min(_CHUNK, resamples - start), len(shared)))
        task_diffs.append(a_pass[pick].mean(axis=1) - b_pass[pick].mean(axis=1))
        sub_diffs.append(_pooled(a_num, a_den, pick) - _pooled(b_num, b_den, pick))
    task = _difference(float(a_pass.mean()), float(b_pass.mean()), np.concatenate(task_diffs))
    subtask = None
    sub = np.concatenate(sub_diffs)
    if a_den.sum() and b_den.sum() and not np.isnan(sub).all():
        subtask = _difference(
            float(a_num.sum() / a_den.sum()), float(b_num.sum() / b_den.sum()), sub
        )
    return Pair(
        a=a_name,
        b=b_name,
        shared_tasks=len(shared),
        task=task,
        subtask=subtask,
        a_checks=(int(a_num.sum()), int(a_den.sum())),
        b_checks=(int(b_num.sum()), int(b_den.sum())),
        a_passed=int(a_pass.sum()),
        b_passed=int(b_pass.sum()),
    )


def _columns(records: Sequence[TaskRecord]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per task: passed (0/1), counted checks passed, counted checks."""
    passed = np.array([r.passed for r in records], dtype=float)
    kept = [counted(r) for r in records]
    num = np.array([sum(ok for _, ok in k) for k in kept], dtype=float)
    den = np.array([len(k) for k in kept], dtype=float)
    return passed, num, den


def _pooled(num: np.ndarray, den: np.ndarray, pick: np.ndarray) -> np.ndarray:
    """Pooled share per resample; NaN where the resample drew no checks at all."""
    n, d = num[pick].sum(axis=1), den[pick].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(d > 0, n / np.where(d > 0, d, 1), np.nan)


def _difference(a: float, b: float, diffs: np.ndarray) -> Difference:
    """The observed difference with its percentile interval and two-sided bootstrap p-value
    (resamples that drew no checks on a side are left out)."""
    diffs = diffs[~np.isnan(diffs)]
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(diffs, [tail, 1 - tail])
    below = (int((diffs <= 0).sum()) + 1) / (diffs.size + 1)
    above = (int((diffs >= 0).sum()) + 1) / (diffs.size + 1)
    p = min(1.0, 2 * min(below, above))
    return Difference(
        a=a,
        b=b,
        difference=a - b,
        interval=(float(low), float(high)),
        p_value=p,
        significant=p < ALPHA,
    )


def holm_rejections(p_values: Sequence[float], alpha: float = ALPHA) -> list[bool]:
    """Holm's step-down: the i-th smallest p is rejected while p_(i) < alpha / (k - i + 1)."""
    k = len(p_values)
    keep = [False] * k
    for rank, index in enumerate(sorted(range(k), key=lambda i: p_values[i])):
        if p_values[index] >= alpha / (k - rank):
            break
        keep[index] = True
    return keep


def _mark_holm(diffs: list[Difference], alpha: float) -> None:
    for d, ok in zip(diffs, holm_rejections([d.p_value for d in diffs], alpha), strict=True):
        d.holm = ok

"""Discrimination by template: how far apart doing the work and doing nothing land.

Validation proves each task solvable and discriminating one at a time; this rolls it up per
template so a template that a trivial attempt scores well on, or whose checks its mutants
never exercise, stands out before anyone is scored on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

from endstate.builtin.validation_results import Attempt, TaskValidation


@dataclass(frozen=True)
class TemplateDiscrimination:
    """One template's validation, summed over its tasks."""

    template_id: str
    family: str
    tier: str
    tasks: int
    reference_score: float | None  # mean share of deterministic points, reference attempts
    null_score: float | None  # the same for the null attempts
    caught: int
    mutants: int
    not_replayed: int
    exercised: int  # checks some null or mutant attempt failed
    checks: int

    @property
    def gap(self) -> float | None:
        """Reference minus null: how much the work itself is worth on this template."""
        if self.reference_score is None or self.null_score is None:
            return None
        return self.reference_score - self.null_score


def _mean(attempts: Sequence[Attempt | None]) -> float | None:
    scores = [a.score for a in attempts if a is not None and a.score is not None]
    return fmean(scores) if scores else None


def by_template(results: Sequence[TaskValidation]) -> list[TemplateDiscrimination]:
    groups: dict[str, list[TaskValidation]] = {}
    for v in results:
        groups.setdefault(v.template_id, []).append(v)
    rows = []
    for template_id, group in sorted(groups.items()):
        first = group[0]
        rows.append(
            TemplateDiscrimination(
                template_id=template_id,
                family=first.family,
                tier=first.tier,
                tasks=len(group),
                reference_score=_mean([v.reference for v in group]),
                null_score=_mean([v.null for v in group]),
                caught=sum(v.caught for v in group),
                mutants=sum(len(v.mutations) for v in group),
                not_replayed=sum(len(v.not_replayed) for v in group),
                exercised=sum(len(v.exercised) for v in group),
                checks=sum(v.checks for v in group),
            )
        )
    return rows

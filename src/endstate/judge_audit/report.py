"""The audit's findings: how often people agree with the judge on the sampled items, per
labeller and pooled, per rubric with every disagreement listed, and how often people agree
with each other where two labelled the same item.

A label counts only if the text its labeller saw is the text the judge read now: a label of
an item whose answer or rubric changed since (a rescored run), or an item no longer judged,
is left out and counted as such rather than compared with a verdict on something else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from endstate.errors import EndstateError
from endstate.judge_audit.agreement import Agreement, agreement
from endstate.judge_audit.items import AuditItem, read_run_checks
from endstate.judge_audit.labels import Label, all_labellers, latest
from endstate.judge_audit.sample import nothing_judged, read_sample
from endstate.visible import visible

EXCERPT = 200


@dataclass(frozen=True)
class Counted:
    """One labeller's label of one item, compared with the judge."""

    item: AuditItem
    label: Label


@dataclass
class AuditReport:
    root: Path
    seed: int
    sampled: int
    judged: int
    judge_models: list[str]
    excluded: dict[str, int]
    per_labeller: dict[str, list[Counted]] = field(default_factory=dict)
    strata_sizes: dict[tuple[str, str], int] = field(default_factory=dict)

    def judge_vs(self, counted: list[Counted]) -> Agreement:
        return agreement([(c.item.verdict, c.label.label) for c in counted])

    @property
    def pooled(self) -> list[Counted]:
        return [c for counted in self.per_labeller.values() for c in counted]

    def rubrics(self) -> dict[str, list[Counted]]:
        out: dict[str, list[Counted]] = {}
        for c in sorted(self.pooled, key=lambda c: (c.item.rubric, c.item.id, c.label.labeller)):
            out.setdefault(c.item.rubric, []).append(c)
        return out

    def run_weighted(self) -> tuple[float | None, int]:
        """Agreement per stratum (rubric x judge verdict) weighted by the stratum's share of
        the run's judged checks, over the strata with labels: the balanced sample weighted
        back to the run. Also how many of the run's judged checks those strata hold."""
        by_stratum: dict[tuple[str, str], list[bool]] = {}
        for c in self.pooled:
            key = (c.item.rubric, c.item.verdict)
            by_stratum.setdefault(key, []).append(c.item.verdict == c.label.label)
        covered = sum(self.strata_sizes.get(k, 0) for k in by_stratum)
        if not covered:
            return None, 0
        total = sum(self.strata_sizes.get(k, 0) * sum(v) / len(v) for k, v in by_stratum.items())
        return total / covered, covered

    def human_pairs(self) -> list[tuple[str, str, Agreement]]:
        out = []
        for a, b in combinations(sorted(self.per_labeller), 2):
            theirs = {c.item.id: c.label.label for c in self.per_labeller[b]}
            pairs = [
                (c.label.label, theirs[c.item.id])
                for c in self.per_labeller[a]
                if c.item.id in theirs
            ]
            if pairs:
                out.append((a, b, agreement(pairs)))
        return out


def build_report(root: Path) -> AuditReport:
    """Read sample, records and labels; one clear error when there is nothing to report."""
    sample = read_sample(root)
    checks = read_run_checks(root)
    if not checks.items:
        raise nothing_judged(root, checks)
    current = {i.id: i for i in checks.items}
    labellers = [lab for lab in all_labellers(root) if lab.labels]
    if not labellers:
        raise EndstateError(
            f"{root}: no labels yet: `endstate judge audit label {root}` serves the labelling page"
        )
    excluded = dict.fromkeys(("changed", "no_longer_judged", "stale", "outside_sample"), 0)
    usable: dict[str, AuditItem] = {}
    for sampled in sample.items:
        now = current.get(sampled.id)
        if now is None:
            excluded["no_longer_judged"] += 1
        elif now.shown != sampled.shown:
            excluded["changed"] += 1
        else:
            usable[sampled.id] = now
    sampled_ids = {s.id for s in sample.items}
    strata: dict[tuple[str, str], int] = {}
    for item in checks.items:
        strata[(item.rubric, item.verdict)] = strata.get((item.rubric, item.verdict), 0) + 1
    report = AuditReport(
        root=root,
        seed=sample.seed,
        sampled=len(sample.items),
        judged=len(checks.items),
        judge_models=sorted({i.judge_model for i in usable.values() if i.judge_model}),
        excluded=excluded,
        strata_sizes=strata,
    )
    for lab in labellers:
        counted = []
        for label in latest(lab.labels).values():
            found = usable.get(label.item)
            if label.item not in sampled_ids:
                excluded["outside_sample"] += 1
            elif found is None or found.shown != label.shown:
                excluded["stale"] += 1
            else:
                counted.append(Counted(found, label))
        report.per_labeller[lab.name] = counted
    return report


def excerpt(text: str, limit: int = EXCERPT) -> str:
    flat = " ".join(visible(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def as_json(report: AuditReport) -> dict[str, Any]:
    weighted, covered = report.run_weighted()
    return {
        "run": str(report.root),
        "sample": {"seed": report.seed, "items": report.sampled, "judged_checks": report.judged},
        "judge_models": report.judge_models,
        "excluded": report.excluded,
        "labellers": [
            {
                "name": name,
                "changed_after_reveal": sum(c.label.after_reveal for c in counted),
                **report.judge_vs(counted).as_json(),
            }
            for name, counted in report.per_labeller.items()
        ],
        "pooled": report.judge_vs(report.pooled).as_json(),
        "run_weighted": {
            "agreement": weighted,
            "judged_checks_covered": covered,
            "judged_checks": report.judged,
        },
        "rubrics": [
            {
                "rubric": rubric,
                **report.judge_vs(counted).as_json(),
                "disagreements": [_disagreement(c) for c in counted if _differs(c)],
            }
            for rubric, counted in report.rubrics().items()
        ],
        "human_human": [
            {"labellers": [a, b], **agreed.as_json()} for a, b, agreed in report.human_pairs()
        ],
    }


def _differs(c: Counted) -> bool:
    return c.item.verdict != c.label.label


def _disagreement(c: Counted) -> dict[str, Any]:
    return {
        "task_id": c.item.task_id,
        "attempt": c.item.attempt,
        "check": c.item.index,
        "answer_excerpt": excerpt(c.item.answer),
        "judge": c.item.verdict,
        "human": c.label.label,
        "labeller": c.label.labeller,
        "comment": c.label.comment,
    }

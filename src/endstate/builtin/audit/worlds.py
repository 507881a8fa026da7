"""Derive every record of fresh worlds, with no task, and report what the rules cannot decide.

A world is meant to hold only records the rules decide: two coverages coordination of
benefits cannot order, a denial reason the map does not cover, a record that breaks a rule
(a member billed whom the plan's kind protects) are the world's faults, found here before a
template ever draws the record. CO-197 is undecidable by design (whether an authorization was
on file is not in the claim's records): it is counted, not reported.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from endstate.builtin.audit.derive import derive_all
from endstate.builtin.audit.findings import Finding
from endstate.builtin.audit.outcome import Outcome
from endstate.envs.world import DEFAULT_CLOCK, World, generate_world

BY_DESIGN = "CO-197"


class WorldAudit(BaseModel):
    """Every record of every world audited: decisions by family, and the findings."""

    seeds: list[int]
    clock: str
    records: int = 0
    decisions: dict[str, dict[str, int]] = Field(default_factory=dict)
    undecidable_by_design: int = 0
    findings: list[Finding] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings


def _by_design(outcome: Outcome) -> bool:
    return any(BY_DESIGN in f.rule for _, f in outcome.undecided)


def _findings(subject: str, outcome: Outcome) -> list[Finding]:
    found = [
        Finding(
            task_id=subject,
            kind="not-derivable",
            field=name,
            rule=fact.rule,
            record=outcome.record,
            detail=fact.why,
        )
        for name, fact in outcome.undecided
    ]
    found += [
        Finding(
            task_id=subject,
            kind="breach",
            field="record",
            claimed=b.value,
            rule=b.rule,
            record=outcome.record,
            detail=b.why,
        )
        for b in outcome.breaches
    ]
    return found


def audit_worlds(seeds: list[int], clock: str = DEFAULT_CLOCK) -> WorldAudit:
    """Derive every referral, claim and order of the worlds of these seeds."""
    return audit_world_list([generate_world(seed, clock) for seed in seeds], clock)


def audit_world_list(worlds: list[World], clock: str = DEFAULT_CLOCK) -> WorldAudit:
    """Derive every record of worlds already made (a world changed on purpose, in a test)."""
    report = WorldAudit(seeds=[w.seed for w in worlds], clock=clock)
    counts: dict[str, Counter[str]] = {}
    for world in worlds:
        for outcome in derive_all(world):
            report.records += 1
            counts.setdefault(outcome.family, Counter())[outcome.decision or "not derivable"] += 1
            if _by_design(outcome) and not outcome.breaches:
                report.undecidable_by_design += 1
                continue
            report.findings += _findings(f"world {world.seed}", outcome)
    report.decisions = {family: dict(sorted(c.items())) for family, c in sorted(counts.items())}
    return report


def worlds_summary(report: WorldAudit) -> str:
    """One line: how many records of which worlds were derived, to what, and what was found."""
    decided = "; ".join(
        f"{family}: " + ", ".join(f"{n} {decision}" for decision, n in counts.items())
        for family, counts in report.decisions.items()
    )
    seeds = ", ".join(str(s) for s in report.seeds)
    found = f"{len(report.findings)} finding(s)" if report.findings else "no findings"
    return (
        f"{report.records} record(s) of the world(s) of seed {seeds} at {report.clock} "
        f"derived ({decided}); {report.undecidable_by_design} CO-197 claim(s) undecidable by "
        f"design; {found}"
    )

"""Coordination of benefits: which of a person's coverages in force pays first.

The order, each step with its source:

1. Only coverages in force on the date of service count (coverage).
2. Medicaid (Medi-Cal) pays last, after every other coverage (medicaid-last-resort).
3. Medicare beside a group health plan: the group plan pays first when the coverage comes
   from current employment (the member's or the spouse's) with an employer of 20 or more
   employees; retiree coverage, and an employer under 20, pay after Medicare
   (msp-working-aged, cms-who-pays-first).
4. Two group plans: the plan covering the person as employee or subscriber pays before the
   plan covering them as a dependent (naic-cob, non-dependent/dependent).
5. A dependent child covered by both parents' plans: the plan of the parent whose birthday
   (month and day) falls earlier in the year pays first; on the same birthday, the plan
   that has covered the parent longer (naic-cob, the birthday rule).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from endstate.rules.coverage import in_force
from endstate.rules.plans import is_medicaid, is_medicare

Relationship = Literal["self", "spouse", "child"]
Basis = Literal["employment", "retiree", "individual", "government"]
SOURCES = ("naic-cob", "msp-working-aged", "cms-who-pays-first", "medicaid-last-resort")


@dataclass(frozen=True)
class CoverageFacts:
    """What coordination of benefits reads of one coverage (the rules' own view of it)."""

    id: str
    plan_kind: str
    relationship: Relationship  # the member's relationship to the subscriber
    basis: Basis  # how the subscriber holds it
    effective: str
    termination: str | None
    subscriber_birthday: str = ""  # MM-DD, for the birthday rule
    employer_size: int | None = None  # employees, for group coverage from employment


class CobUndecided(ValueError):
    """Two coverages the rules cannot order (a world must never hold such a pair)."""


def _tier(c: CoverageFacts) -> int:
    if is_medicaid(c.plan_kind):
        return 9  # always last
    return 0


def _before(a: CoverageFacts, b: CoverageFacts) -> bool | None:
    """Whether `a` pays before `b` (None: these rules do not decide)."""
    if _tier(a) != _tier(b):
        return _tier(a) < _tier(b)
    if is_medicare(a.plan_kind) != is_medicare(b.plan_kind):
        medicare, group = (a, b) if is_medicare(a.plan_kind) else (b, a)
        group_first = (
            group.basis == "employment"
            and group.relationship in ("self", "spouse")
            and (group.employer_size or 0) >= 20
        )
        return (group is a) if group_first else (medicare is a)
    if (a.relationship == "self") != (b.relationship == "self"):
        return a.relationship == "self"
    if a.relationship == b.relationship == "child":
        if a.subscriber_birthday != b.subscriber_birthday:
            return a.subscriber_birthday < b.subscriber_birthday
        return a.effective < b.effective if a.effective != b.effective else None
    return None


def order(coverages: list[CoverageFacts], day: str) -> list[CoverageFacts]:
    """The coverages in force on `day`, the one that pays first first (CobUndecided when two
    cannot be ordered)."""
    live = [c for c in coverages if in_force(c.effective, c.termination, day)]
    ranked: list[CoverageFacts] = []
    for c in live:
        at = len(ranked)
        for i, other in enumerate(ranked):
            first = _before(c, other)
            if first is None:
                raise CobUndecided(f"coverages {c.id} and {other.id} cannot be ordered")
            if first:
                at = i
                break
        ranked.insert(at, c)
    return ranked


def primary(coverages: list[CoverageFacts], day: str) -> CoverageFacts | None:
    """The coverage that pays first on `day`, if any is in force."""
    ranked = order(coverages, day)
    return ranked[0] if ranked else None

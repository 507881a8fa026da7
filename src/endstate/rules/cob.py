"""Coordination of benefits: which of a person's coverages in force pays first.

The order, each step with its source:

1. Only coverages in force on the date of service count (coverage).
2. Medicaid (Medi-Cal) pays last, after every other coverage (medicaid-last-resort,
   cms-who-pays-first).
3. Medicare beside a group health plan: the group plan pays first when the coverage comes
   from current employment (the member's own or the spouse's) with an employer of 20 or more
   employees; retiree coverage, coverage through a smaller employer, and individual coverage
   pay after Medicare (msp-working-aged, cms-who-pays-first). These are the rules for Medicare
   by age; the world gives Medicare to no one under 65, so the disability (100 or more
   employees) and ESRD (30-month) rules are not modelled.
4. Two other plans: the first of the model regulation's rules that applies (naic-cob, section
   6):
   a. the plan covering the person as employee, subscriber or retiree pays before the plan
      covering them as a dependent, except that the two swap when the person has Medicare
      and Medicare pays after the dependent plan but before the other one (a retiree whose
      spouse still works for a large employer: spouse's plan, Medicare, retiree plan);
   b. a child covered by both parents' plans: the plan of the parent whose birthday (month
      and day) falls earlier in the year, and on the same birthday the plan that has covered
      the parent longer (the birthday rule applies to parents married or living together; the
      world has no other kind);
   c. coverage through active employment before coverage as a retiree;
   d. the plan that has covered the person longer before the other.
   Two coverages none of these can order raise CobUndecided.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from endstate.rules.coverage import in_force
from endstate.rules.plans import is_medicaid, is_medicare

Relationship = Literal["self", "spouse", "child"]
Basis = Literal["employment", "retiree", "individual", "government"]
SOURCES = ("naic-cob", "msp-working-aged", "cms-who-pays-first", "medicaid-last-resort")
LARGE_EMPLOYER = 20  # employees: Medicare pays after a group plan from current employment


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


def _before_medicare(group: CoverageFacts) -> bool:
    """Whether this (non-Medicare) coverage pays before Medicare, for a beneficiary by age."""
    return (
        group.basis == "employment"
        and group.relationship in ("self", "spouse")
        and (group.employer_size or 0) >= LARGE_EMPLOYER
    )


def _before(a: CoverageFacts, b: CoverageFacts, medicare: bool) -> bool | None:
    """Whether `a` pays before `b` (None: these rules do not decide). `medicare`: whether the
    person has Medicare in force beside them (for the model regulation's Medicare exception)."""
    if _tier(a) != _tier(b):
        return _tier(a) < _tier(b)
    if is_medicare(a.plan_kind) != is_medicare(b.plan_kind):
        mc, group = (a, b) if is_medicare(a.plan_kind) else (b, a)
        return (group is a) if _before_medicare(group) else (mc is a)
    if is_medicare(a.plan_kind):
        return None  # two Medicare coverages: no rule orders them
    if (a.relationship == "self") != (b.relationship == "self"):
        own, dependent = (a, b) if a.relationship == "self" else (b, a)
        swap = medicare and _before_medicare(dependent) and not _before_medicare(own)
        return (dependent is a) if swap else (own is a)
    if a.relationship == b.relationship == "child":
        if a.subscriber_birthday != b.subscriber_birthday:
            return a.subscriber_birthday < b.subscriber_birthday
        return a.effective < b.effective if a.effective != b.effective else None
    if (a.basis == "employment") != (b.basis == "employment") and "retiree" in (a.basis, b.basis):
        return a.basis == "employment"
    return a.effective < b.effective if a.effective != b.effective else None


def order(coverages: list[CoverageFacts], day: str) -> list[CoverageFacts]:
    """The coverages in force on `day`, the one that pays first first (CobUndecided when two
    cannot be ordered)."""
    live = [c for c in coverages if in_force(c.effective, c.termination, day)]
    medicare = any(is_medicare(c.plan_kind) for c in live)
    ahead = [0] * len(live)  # how many coverages each pays before
    for i, a in enumerate(live):
        for j in range(i + 1, len(live)):
            first = _before(a, live[j], medicare)
            if first is None:
                raise CobUndecided(f"coverages {a.id} and {live[j].id} cannot be ordered")
            ahead[i if first else j] += 1
    if len(set(ahead)) != len(live):  # a cycle: the rules would contradict themselves
        raise CobUndecided("coverages " + ", ".join(c.id for c in live) + " cannot be ordered")
    ranked = [c for _, c in sorted(zip(ahead, live, strict=True), key=lambda p: -p[0])]
    return ranked


def primary(coverages: list[CoverageFacts], day: str) -> CoverageFacts | None:
    """The coverage that pays first on `day`, if any is in force."""
    ranked = order(coverages, day)
    return ranked[0] if ranked else None

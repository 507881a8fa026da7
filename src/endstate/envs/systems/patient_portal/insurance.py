"""Who pays for each patient's care: coverage by the world's own plans, so the portal's
Medi-Cal is the world's Golden State Community Care Medi-Cal and its kind decides, by the
rules (endstate.rules.cost_sharing), whether the member may be asked to pay anything.

As the world draws its coverage (envs/world/coverage_gen.py): patients of 65 and over are on a
Medicare Advantage plan from the first of the month they turned 65 (before it, on a commercial
plan); younger patients are on a commercial plan or Medi-Cal. Each coverage runs from before
the billing ledger's three years, so every visit on the ledger has a plan in force.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date, timedelta

from endstate.envs.systems.patient_portal.model import Insurance, Patient
from endstate.envs.world import Plan
from endstate.rules.cost_sharing import cost_sharing_allowed
from endstate.rules.plans import is_medicaid, is_medicare

MEDICARE_AGE = 65
MEDICAID_SHARE = 0.3  # of patients under 65
LEDGER_YEARS = 3
COPAYS = {"commercial": (20.0, 25.0, 30.0, 40.0), "medicare": (0.0, 10.0, 15.0, 20.0)}


def seeded_rng(seed: int) -> random.Random:
    """Coverage has its own rng: drawing it leaves every other record's draws as they were."""
    return random.Random(f"patient_portal:{seed}:insurance")


def _birthday(dob: date, years: int) -> date:
    return dob.replace(year=dob.year + years, day=min(dob.day, 28))


def _member_id(rng: random.Random, plan: Plan, used: set[str]) -> str:
    while True:
        value = plan.member_prefix + "".join(rng.choice("0123456789") for _ in range(9))
        if value not in used:
            used.add(value)
            return value


def _copay(rng: random.Random, plan: Plan) -> float:
    if not cost_sharing_allowed(plan.kind):
        return 0.0
    return rng.choice(COPAYS["medicare" if is_medicare(plan.kind) else "commercial"])


def coverages(
    rng: random.Random, patients: Sequence[Patient], plans: Sequence[Plan], today: date
) -> tuple[Insurance, ...]:
    """Every patient's coverage periods, oldest first; the last one is in force today."""
    seniors = [p for p in plans if is_medicare(p.kind)]
    commercial = [p for p in plans if p.kind == "commercial"]
    medicaid = [p for p in plans if is_medicaid(p.kind)]
    ledger_start = today - timedelta(days=365 * LEDGER_YEARS)
    used: set[str] = set()
    out: list[Insurance] = []

    def add(p: Patient, plan: Plan, start: date, end: date | None) -> None:
        government = plan.kind != "commercial"
        out.append(
            Insurance(
                id=f"INS-{len(out) + 1:06d}",
                patient_id=p.id,
                plan_id=plan.id,
                payer=plan.payer,
                plan=plan.name,
                kind=plan.kind,
                member_id=_member_id(rng, plan, used),
                group_number="" if government else f"G{rng.randint(10000, 99999)}",
                copay=_copay(rng, plan),
                effective=start.isoformat(),
                termination=end.isoformat() if end else None,
            )
        )

    for p in patients:
        dob = date.fromisoformat(p.dob)
        adult = _birthday(dob, 18)
        since = max(adult, ledger_start - timedelta(days=rng.randint(30, 2000)))
        since = since.replace(day=1) if since.replace(day=1) >= adult else since
        medicare_from = _birthday(dob, MEDICARE_AGE).replace(day=1)
        if medicare_from <= today:
            if medicare_from > since:
                add(p, rng.choice(commercial), since, medicare_from - timedelta(days=1))
                since = medicare_from
            add(p, rng.choice(seniors), since, None)
        elif rng.random() < MEDICAID_SHARE:
            add(p, rng.choice(medicaid), since, None)
        else:
            add(p, rng.choice(commercial), since, None)
    return tuple(out)

"""Registration slips: referrals registered with the secondary of a patient's two coverages.

Front desks pick the wrong coverage on a referral often enough that authorization staff check
coordination of benefits before they submit: the primary payer authorizes first. A few
referrals per world carry that slip. It is made after their documents were written, so the
letter of medical necessity stays addressed to the plan it was really written for; a patient
with no other coverage is given one (a spouse's plan, or Medicaid beside Medicare) first.
"""

from __future__ import annotations

import random
from dataclasses import replace

from endstate.envs.world.gen_base import GenBase
from endstate.envs.world.model import Coverage, Plan, Referral

SLIPS_PER_WORLD = 3
# Where the primary takes requests on a portal, so the request has a channel to go by.
PORTALS = ("payer_a", "payer_b")


class RegistrationSlipsGen(GenBase):
    """Re-registers up to three referrals with a secondary coverage of the patient's."""

    def registration_slips(self) -> None:
        w = self.world
        # Its own rng, so the sections after this one draw as they would without it.
        rng = random.Random(f"{w.seed}:registration-slips")
        eligible = [i for i, r in enumerate(w.referrals) if self._primary_needing_auth(r)]
        slipped: set[str] = set()
        for i in rng.sample(eligible, len(eligible)):
            ref = w.referrals[i]
            if len(slipped) == SLIPS_PER_WORLD or ref.mrn in slipped:
                continue
            secondary = self._secondary(ref.mrn) or self._add_secondary(ref, rng)
            if secondary is not None:
                w.referrals[i] = replace(ref, coverage_id=secondary.id)
                slipped.add(ref.mrn)

    def _primary_needing_auth(self, ref: Referral) -> bool:
        """Registered with a primary in force on a portal plan (never Medicaid, which pays
        last) that wants authorization for a service, with nothing on file yet."""
        w = self.world
        cov = next(c for c in w.coverages if c.id == ref.coverage_id)
        plan = w.plan(cov.plan_id)
        if cov.rank != 1 or cov.status != "active" or ref.existing_auth:
            return False
        if plan.portal not in PORTALS or plan.kind == "medicaid_mco":
            return False
        return self.wants_auth(plan.id, ref.services)

    def _secondary(self, mrn: str) -> Coverage | None:
        return next(
            (
                c
                for c in self.world.coverages
                if c.mrn == mrn and c.rank == 2 and c.status == "active"
            ),
            None,
        )

    def _add_secondary(self, ref: Referral, rng: random.Random) -> Coverage | None:
        """Another payer's commercial or Medicaid plan, in force, as the patient's secondary."""
        w = self.world
        primary = w.plan(next(c.plan_id for c in w.coverages if c.id == ref.coverage_id))
        others = [p for p in w.plans if p.payer != primary.payer and _can_be_secondary(p)]
        if not others:
            return None
        plan = rng.choice(others)
        effective = self.today.toordinal() - rng.randint(60, 900)
        cov = Coverage(
            id=f"COV-{len(w.coverages) + 1:04d}",
            mrn=ref.mrn,
            plan_id=plan.id,
            member_id=self.unique_digits(9, plan.member_prefix, rng),
            group_number="" if plan.kind == "medicaid_mco" else f"G{rng.randint(10000, 99999)}",
            rank=2,
            status="active",
            effective=type(self.today).fromordinal(effective).isoformat(),
            termination=None,
        )
        w.coverages.append(cov)
        return cov


def _can_be_secondary(plan: Plan) -> bool:
    return plan.kind in ("commercial", "medicaid_mco")

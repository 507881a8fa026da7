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
from datetime import timedelta

from endstate.envs.world import clinical
from endstate.envs.world.coverage_gen import CoverageGen
from endstate.envs.world.model import Coverage, Plan, Referral

SLIPS_PER_WORLD = 3
# Where the primary takes requests on a portal, so the request has a channel to go by.
PORTALS = ("payer_a", "payer_b")


class RegistrationSlipsGen(CoverageGen):
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
            secondary = self._secondary(ref.mrn, ref.appointment) or self._add_secondary(ref, rng)
            if secondary is not None:
                w.referrals[i] = replace(ref, coverage_id=secondary.id)
                slipped.add(ref.mrn)

    def _primary_needing_auth(self, ref: Referral) -> bool:
        """Registered with a primary in force on a portal plan (never Medicaid, which pays
        last) that wants authorization for a service, with nothing on file yet."""
        w = self.world
        cov = next(c for c in w.coverages if c.id == ref.coverage_id)
        plan = w.plan(cov.plan_id)
        if cov.rank != 1 or not cov.in_force(ref.appointment) or ref.existing_auth:
            return False
        if plan.portal not in PORTALS or plan.kind == "medicaid_mco":
            return False
        return self.wants_auth(plan.id, ref.services)

    def _secondary(self, mrn: str, day: str) -> Coverage | None:
        """The plan that pays second on `day`, if the patient has one in force then."""
        order = self.world.benefit_order(mrn, day)
        return order[1] if len(order) > 1 else None

    def _add_secondary(self, ref: Referral, rng: random.Random) -> Coverage | None:
        """Another payer's plan the rules put second: a spouse's commercial plan, a retiree
        plan beside Medicare, or Medi-Cal, which pays last; then the patient's plans are
        ranked again."""
        w = self.world
        primary = w.plan(w.coverage(ref.coverage_id).plan_id)
        others = [p for p in w.plans if p.payer != primary.payer and _can_be_secondary(p)]
        if not others:
            return None
        patient = w.patient(ref.mrn)
        years = clinical.age(patient.dob, self.today)
        start = self.today - timedelta(days=rng.randint(60, 900))
        cov = self._cover(
            patient, rng.choice(others), "active", years, effective=start, second=True, rng=rng
        )
        if cov.termination is not None and cov.termination < ref.appointment:
            w.coverages[-1] = cov = replace(cov, termination=None)
        first = w.coverage(ref.coverage_id)
        if cov.relationship == "child" and cov.subscriber_birthday <= first.subscriber_birthday:
            # The other parent's birthday falls later in the year: their plan pays second.
            w.coverages[-1] = cov = replace(cov, subscriber_birthday="12-31")
        self._rank()
        ranked = w.coverage(cov.id)
        return ranked if ranked.rank == 2 else None


def _can_be_secondary(plan: Plan) -> bool:
    return plan.kind in ("commercial", "medicaid_mco")

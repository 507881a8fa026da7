"""Coverage: each patient's plans, the dates they pay between, and what coordination of
benefits reads of them (rules.cob), ranked as the rules order them today."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import date, timedelta

from endstate.envs.world import clinical
from endstate.envs.world.gen_base import GenBase
from endstate.envs.world.model import Coverage, Patient, Plan


class CoverageGen(GenBase):
    """The coverage section, and the one way any later section adds a coverage."""

    def coverages(self) -> None:
        """Each patient's plans, with the dates they pay between and the facts coordination of
        benefits reads (rules.cob); ranks are the rules' order today, checked by coherence.

        Today's standing mixes plans in force, ended (some replaced by a new plan from the
        day after), voided enrollments, plans starting on the 1st of a coming month, and plans
        in force today that end within weeks: whether any of them pays for a service is
        decided on its date, never by the standing."""
        rng = self.rng
        plans = self.world.plans
        standings = ["active"] * 7 + ["terminated", "inactive", "future"]
        for i, p in enumerate(self.world.patients):
            years = clinical.age(p.dob, self.today)
            seniors = [pl for pl in plans if pl.kind in ("medicare_advantage", "delegated_group")]
            others = [pl for pl in plans if pl not in seniors]
            pool = seniors if years >= 65 else others
            first = pool[i % len(pool)] if i < 2 * len(plans) else rng.choice(pool)
            standing = standings[i % len(standings)] if i < 20 else rng.choice(standings)
            cov = self._cover(p, first, standing, years)
            if standing in ("terminated", "inactive") and rng.random() < 0.6:
                # A replacement plan: from the day after the old one ended, or any time when
                # the old enrollment was voided.
                plan = rng.choice([pl for pl in pool if pl is not first] or pool)
                start = (
                    date.fromisoformat(cov.termination) + timedelta(days=1)
                    if standing == "terminated" and cov.termination
                    else None
                )
                self._cover(p, plan, "active", years, effective=start)
            elif standing == "active" and rng.random() < 0.3:
                # Other coverage from another payer: a spouse's or a second parent's plan, a
                # retiree plan beside Medicare, or Medi-Cal, which pays last.
                choices = [pl for pl in others if pl.payer != first.payer]
                if years >= 65:  # beside Medicare: a retiree plan or Medi-Cal
                    choices = [pl for pl in choices if pl.kind in ("commercial", "medicaid_mco")]
                if first.kind == "medicaid_mco":
                    choices = []  # Medi-Cal here is the only plan (it would pay last anyway)
                if choices:
                    self._cover(p, rng.choice(choices), "active", years, second=True)
            elif standing == "active" and rng.random() < 0.12 and self._switch(p):
                # The plan changes at a month's end: the next one starts the day after.
                new = self.world.coverages[-1]
                plan = rng.choice(
                    [pl for pl in pool if pl.payer != self.world.plan(new.plan_id).payer] or pool
                )
                self._cover(
                    p,
                    plan,
                    "future",
                    years,
                    effective=date.fromisoformat(new.termination or self.today.isoformat())
                    + timedelta(days=1),
                )
        self._rank()

    def _switch(self, p: Patient) -> bool:
        """End the patient's only plan at the end of this month or the next (a plan change)."""
        w = self.world
        mine = [c for c in w.coverages if c.mrn == p.mrn]
        if len(mine) != 1:
            return False
        month_end = self.today.replace(day=1) + timedelta(days=32 * self.rng.randint(1, 2))
        end = month_end.replace(day=1) - timedelta(days=1)
        w.coverages[-1] = replace(mine[0], termination=end.isoformat())
        return True

    def _cover(
        self,
        p: Patient,
        plan: Plan,
        standing: str,
        years: int,
        *,
        effective: date | None = None,
        second: bool = False,
        rng: random.Random | None = None,
    ) -> Coverage:
        """One coverage of `plan` for `p`, standing so today, with its COB facts (drawn from
        `rng`, the section's own, or the world's)."""
        rng = rng or self.rng
        if standing == "future":
            start = effective or (
                self.today.replace(day=1) + timedelta(days=32 * rng.randint(1, 2))
            ).replace(day=1)
            eff, term = start.isoformat(), None
        elif standing == "terminated":
            eff, term = self._day(rng, -900, -400), self._day(rng, -120, -2)
        else:  # active (in force today), or voided (inactive)
            eff = effective.isoformat() if effective else self._day(rng, -1500, -30)
            # Most plans run on; some end within weeks of today, before appointments are kept.
            roll = rng.random()
            term = (
                None
                if roll < 0.75
                else self._day(rng, 5, 45)
                if roll < 0.85
                else self._day(rng, 120, 500)
            )
            if standing == "inactive":
                term = None
        government = plan.kind != "commercial"
        if years < 18:
            relationship, basis = "child", "government" if government else "employment"
        elif second and plan.kind == "commercial":
            relationship, basis = ("self", "retiree") if years >= 65 else ("spouse", "employment")
        else:
            relationship, basis = "self", "government" if government else "employment"
        birthday = ""
        if relationship == "child" and not government:
            birthday = f"{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        size = rng.choice([45, 120, 800, 2500, 12000]) if basis == "employment" else None
        group = "" if government else f"G{rng.randint(10000, 99999)}"
        cov = Coverage(
            id=f"COV-{len(self.world.coverages) + 1:04d}",
            mrn=p.mrn,
            plan_id=plan.id,
            member_id=self.unique_digits(9, plan.member_prefix, rng),
            group_number=group,
            rank=1,
            status=standing,
            effective=eff,
            termination=term,
            relationship=relationship,
            basis=basis,
            subscriber_birthday=birthday,
            employer_size=size,
        )
        self.world.coverages.append(cov)
        return cov

    def _rank(self) -> None:
        """Ranks as the rules order the plans in force today; a plan not in force today ranks
        first (the one it replaced or will replace paid, or will pay, first)."""
        w = self.world
        today = self.today.isoformat()
        for mrn in dict.fromkeys(c.mrn for c in w.coverages):
            order = [c.id for c in w.benefit_order(mrn, today)]
            w.coverages = [
                replace(c, rank=order.index(c.id) + 1) if c.mrn == mrn and c.id in order else c
                for c in w.coverages
            ]

    def _day(self, rng: random.Random, lo: int, hi: int) -> str:
        return (self.today + timedelta(days=rng.randint(lo, hi))).isoformat()

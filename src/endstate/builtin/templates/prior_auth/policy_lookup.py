"""Easy: read the payer's published policy and make the determination."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    DETERMINATION,
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    notes_text,
    q,
    replace_value,
    retarget,
)
from endstate.builtin.templates.prior_auth.facts import (
    FAMILY,
    answer,
    cleared_only_check,
    coverage_pays_first,
    determination_note_check,
    no_request_check,
    plan_portal,
    referral_given_values,
    referral_intro,
    services_need_auth,
    services_summary,
    site_rule_applies,
)
from endstate.builtin.templates.prior_auth.information_request import pended
from endstate.envs.world.catalog import SITES


class PolicyLookup(TaskTemplate):
    """Easy: read the payer's published policy and make the determination."""

    id = "pa.easy.policy-lookup"
    family = FAMILY
    tier = "easy"
    scenario_label = "authorization_determination"
    site_rule = False  # True: a site-of-service rule decides (the place must be read too)

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for r in w.world.referrals:
            if plan_portal(w, r) != "payer_a" or not coverage_pays_first(w, r) or r.existing_auth:
                continue
            if pended(w, r.id) is not None:  # a request is already on file
                continue
            if site_rule_applies(w, r) != self.site_rule:
                continue
            needs = services_need_auth(w, r)
            if all(needs) or not any(needs):
                out.append(r.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        plan = w.plan_of(ref.coverage_id)
        required = services_need_auth(w, ref)[0]
        policies = [w.rules[(plan.id, s.cpt)].policy_id for s in ref.services]
        verdict, opposite = ("PA REQUIRED", "NO PA REQUIRED")
        if not required:
            verdict, opposite = opposite, verdict
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id, "services")
        t.referral(ref.id, "coverages")
        t.payer_a_login(plan.payer, plan.portal_username or "")
        t.goto("/policies")
        why = "requires" if required else "does not require"
        where = f" in an {SITES[ref.services[0].site]}" if self.site_rule else ""
        body = (
            f"{verdict}: {plan.name} {why} prior authorization for {services_summary(ref)}{where} "
            f"per policy {', '.join(policies)}."
        )
        t.referral_note(ref.id, "Prior authorization determination", DETERMINATION, body)
        t.clear()
        look = w.lookalike_referral(ref, rng)
        cites = " && ".join(f"contains({notes_text(ref.id)}, {q(p)})" for p in policies)
        checks = [
            determination_note_check(ref.id),
            jcheck(
                f"starts_with(ehr.notes[?subject_id=={q(ref.id)} && "
                f"category=='auth-determination'] | [-1].body || '', {q(verdict)})",
                True,
                3,
                f"The determination is {verdict}",
                "Clinical Reasoning",
            ),
            jcheck(cites, True, 1, "The note cites the payer policy", "Data Accuracy"),
            cleared_only_check(ref.id),
            no_request_check(ref.mrn),
        ]
        return Draft(
            key=ref.id,
            instruction=(
                f"{referral_intro(w, ref)} is waiting for an authorization decision. Determine "
                "from the "
                "payer's published policy whether the scheduled services need prior "
                "authorization. Record the determination as an authorization determination "
                "note that begins with “PA REQUIRED” or “NO PA REQUIRED” and cites the payer's "
                "policy number, then clear the referral. Do not submit a request."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=checks,
            expected_outcome=f"{verdict} citing {', '.join(policies)}; referral cleared",
            rationale=f"{plan.name} {why} prior authorization for {services_summary(ref)}.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                Mutation(
                    "opposite",
                    "wrong-value",
                    "record the opposite determination",
                    replace_value(t, "note-body", body.replace(verdict, opposite, 1)),
                ),
                Mutation(
                    "look-alike",
                    "look-alike",
                    f"work referral {look.id} instead",
                    retarget(t.steps, ref.id, look.id),
                ),
            ],
            given=[*referral_given_values(w, ref), "PA REQUIRED", "NO PA REQUIRED"],
            answer={
                **answer(
                    w,
                    ref,
                    "request" if required else "not-required",
                    cov=w.coverages[ref.coverage_id] if required else None,
                ),
                "scope": "determination",
            },
        )


class SiteOfService(PolicyLookup):
    """Medium: the payer requires authorization only in a hospital setting — the policy and
    the place the services are scheduled decide together."""

    id = "pa.medium.site-of-service"
    tier = "medium"
    site_rule = True

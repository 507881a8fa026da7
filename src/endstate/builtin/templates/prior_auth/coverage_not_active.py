"""Hard: the coverage on the referral is not in force — stop, document, escalate."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    DETERMINATION,
    FOLLOW_UP,
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    q,
    replace_value,
)
from endstate.builtin.templates.prior_auth.facts import (
    FAMILY,
    answer,
    no_request_check,
    referral_given_values,
    referral_intro,
    submit_anyway_mutation,
)
from endstate.envs.world import Coverage, Referral, mdy
from endstate.rules import coverage as coverage_rule


class CoverageNotActive(TaskTemplate):
    """Hard: the coverage on the referral is not in force — stop, document, escalate."""

    id = "pa.hard.coverage-not-active"
    family = FAMILY
    tier = "hard"
    scenario_label = "authorization_request"

    def candidates(self, w: WorldView) -> list[str]:
        """Referrals for which no coverage of the patient pays on the date of service: the
        coverage on the referral ended before it, starts after it, or was voided, and no
        other plan is in force that day (were one, the request would go to it)."""
        return [
            r.id
            for r in w.world.referrals
            if not w.world.benefit_order(r.mrn, r.appointment) and w.current_lmn(r.id) is not None
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        state = _state(w.coverages[ref.coverage_id], ref.appointment)
        t = self._trajectory(w, ref, state)
        return Draft(
            key=ref.id,
            instruction=(
                f"{referral_intro(w, ref)} needs its prior authorization handled before the "
                "appointment. Submit the request to the payer if one can properly be submitted; "
                "either way, document what you found and did on the referral. Clear the "
                "referral only once authorization is settled."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=self._checks(w, ref, w.coverages[ref.coverage_id], state),
            expected_outcome="no request sent; referral left open; note documents the coverage "
            "problem and escalation",
            rationale=f"The referral's coverage is {state}, and no other plan of the patient "
            f"is in force on the date of service {mdy(ref.appointment)}: a request would be "
            "against coverage not in force then (rules.coverage).",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(w, ref, t),
            given=referral_given_values(w, ref),
            answer=answer(w, ref, "not-in-force"),
        )

    def _trajectory(self, w: WorldView, ref: Referral, state: str) -> Traj:
        """Look at the coverage, then document and escalate; no request, no clearing."""
        cov = w.coverages[ref.coverage_id]
        plan = w.plan_of(ref.coverage_id)
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id, "coverages")
        body = (
            f"Coverage on this referral ({plan.name}, member {cov.member_id}) is {state}, so "
            "no prior authorization request was submitted. Referral left open; escalated to "
            "patient access to verify current insurance before the appointment on "
            f"{mdy(ref.appointment)}."
        )
        t.referral_note(ref.id, "Coverage not active - auth on hold", FOLLOW_UP, body)
        return t

    def _checks(
        self, w: WorldView, ref: Referral, cov: Coverage, state: str
    ) -> list[dict[str, object]]:
        """Documented with the coverage fact the chart shows (an escalation that never read
        the coverage does not pass) as a follow-up, nothing requested by any channel, no
        letter sent anywhere, and the referral still open."""
        notes = f"join(' ', ehr.notes[?subject_id=={q(ref.id)}].body || `[]`)"
        return [
            jcheck(
                f"length(ehr.notes[?subject_id=={q(ref.id)}]) > `0`",
                True,
                1,
                "A note documents what was found",
                "Documentation",
            ),
            jcheck(
                " || ".join(
                    f"contains({notes}, {q(form)})" for form in _evidence(cov, ref.appointment)
                ),
                True,
                2,
                "The note states the coverage fact that stops the request",
                "Data Accuracy",
            ),
            no_request_check(ref.mrn, 2),
            jcheck(
                f"contains(ehr.cleared_referrals, {q(ref.id)})",
                False,
                2,
                "The referral was not cleared while coverage is unresolved",
                "Safety",
            ),
            jcheck(
                f"length(ehr.notes[?subject_id=={q(ref.id)} && category=='auth-follow-up']) > `0`",
                True,
                1,
                "The note is filed as an authorization follow-up (escalated, not settled)",
                "Documentation",
            ),
        ]

    def _mutations(self, w: WorldView, ref: Referral, t: Traj) -> list[Mutation]:
        """Clearing anyway; and, where Payer A would take it, submitting anyway."""
        cov = w.coverages[ref.coverage_id]
        act_anyway = Traj()
        act_anyway.referral_note(ref.id, "Auth not needed", DETERMINATION, "Clearing.", mark="bad")
        act_anyway.clear()
        mutations = [
            *drop_mutations(t),
            Mutation(
                "no-coverage-fact",
                "wrong-value",
                "escalate without stating what is wrong with the coverage",
                replace_value(
                    t,
                    "note-body",
                    "Prior authorization on hold; escalated to patient access for review.",
                ),
            ),
            Mutation(
                "clear-anyway",
                "wrong-action",
                "record a determination and clear the referral anyway",
                [{"op": "insert", "at": len(t.steps), "steps": act_anyway.steps}],
            ),
        ]
        standing = coverage_rule.standing(cov.effective, cov.termination, ref.appointment)
        if w.plan_of(ref.coverage_id).portal == "payer_a" and standing == "terminated":
            lmn = w.current_lmn(ref.id)
            assert lmn is not None
            mutations.append(
                submit_anyway_mutation(
                    w,
                    ref,
                    lmn,
                    len(t.steps),
                    "submit the request on the portal despite the coverage",
                )
            )
        return mutations


def _evidence(cov: Coverage, day: str) -> list[str]:
    """What a note must quote to show the coverage was read: the date it ended or starts, or
    its inactive status (either case of the first letter)."""
    standing = _standing(cov, day)
    if standing == "terminated" and cov.termination:
        return [mdy(cov.termination)]
    if standing == "not-yet-effective":
        return [mdy(cov.effective)]
    return ["inactive", "Inactive"]


def _state(cov: Coverage, day: str) -> str:
    """The coverage's standing on the date of service, as the note puts it."""
    standing = _standing(cov, day)
    if standing == "terminated" and cov.termination:
        return f"terminated on {mdy(cov.termination)}"
    if standing == "not-yet-effective":
        return f"not effective until {mdy(cov.effective)}"
    return "inactive"


def _standing(cov: Coverage, day: str) -> str:
    return coverage_rule.standing(
        cov.effective, cov.termination, day, voided=cov.status == "inactive"
    )

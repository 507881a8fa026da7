"""Medium: the round trip through Payer B's multi-step wizard, reference number back."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    Draft,
    Mutation,
    Traj,
    WorldView,
    decoys_unsent,
    drop_mutations,
    fake_confirmation,
    jcheck,
    q,
    retarget,
)
from endstate.builtin.templates.prior_auth.facts import (
    FAMILY,
    answer,
    coverage_pays_first,
    payer_b_wizard_steps,
    plan_portal,
    record_submission_note,
    referral_given_values,
    referral_intro,
    services_need_auth,
    submission_checks,
)
from endstate.envs.world import Document, Referral


class WizardRequest(TaskTemplate):
    """Medium: the round trip through Payer B's multi-step wizard, reference number back."""

    id = "pa.medium.wizard-request"
    family = FAMILY
    tier = "medium"
    scenario_label = "authorization_request"

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for r in w.world.referrals:
            lmn = w.current_lmn(r.id)
            if (
                plan_portal(w, r) == "payer_b"
                and coverage_pays_first(w, r)
                and not r.existing_auth
                and any(services_need_auth(w, r))
                and lmn is not None
                and w.unambiguous(lmn)
                and len(r.services) <= 3
                and r.appointment >= w.today
            ):
                out.append(r.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        lmn = w.current_lmn(ref.id)
        assert lmn is not None
        t = Traj()
        t.ehr_origin()
        payer_b_wizard_steps(t, w, ref, lmn)
        body = record_submission_note(t, w, ref, "Reference number ${conf}.")
        checks = self._checks(w, ref, lmn)
        look = w.lookalike_referral(ref, rng)
        return Draft(
            key=ref.id,
            instruction=(
                f"{referral_intro(w, ref)} needs prior authorization before the appointment. "
                "Submit "
                "the request to the payer's provider portal with the referral's diagnoses, "
                "services (with laterality) and appointment date, the requesting and servicing "
                "providers, and the current signed letter of medical necessity attached. Then "
                "record the submission, with the reference number the payer gives you, as an "
                "authorization determination note and clear the referral."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=checks,
            expected_outcome="one accurate request on Payer B; its reference number in the "
            "EHR note; referral cleared",
            rationale="The plan requires authorization for at least one scheduled service and "
            "takes requests through its portal's wizard.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(ref, t, body, look),
            given=referral_given_values(w, ref),
            answer=answer(w, ref, "request", cov=w.coverages[ref.coverage_id], attach=[lmn]),
        )

    def _checks(self, w: WorldView, ref: Referral, lmn: Document) -> list[dict[str, object]]:
        checks = wizard_checks(ref, lmn, w.coverages[ref.coverage_id].member_id)
        return checks + decoys_unsent(w.decoy_lmns(ref.id), 2)

    def _mutations(self, ref: Referral, t: Traj, body: str, look: Referral) -> list[Mutation]:
        """A made-up reference number; the note and clearing on a look-alike's referral."""
        return [
            *drop_mutations(t),
            fake_confirmation(t, "note-body", body, "RQ-7KQ2M9XW4T", "reference number"),
            Mutation(
                "look-alike",
                "look-alike",
                f"document and clear referral {look.id} instead",
                retarget(t.steps, ref.id, look.id, start=t.marks["note-subject"] - 1),
            ),
        ]


def wizard_checks(ref: Referral, lmn: Document, member_id: str) -> list[dict[str, object]]:
    """One request for `member_id` as Payer B's wizard takes it: both providers, laterality
    per line; its reference number noted; the referral cleared."""
    sub = f"payer_b.pa_submissions[?member_id=={q(member_id)}]"
    return submission_checks(
        sub,
        ref,
        lmn,
        providers=[
            jcheck(
                f"{sub} | [0].provider_npi",
                ref.referring_npi,
                1,
                "Requesting (referring) provider's NPI",
                "Data Accuracy",
            ),
            jcheck(
                f"{sub} | [0].servicing_npi",
                ref.provider_npi,
                1,
                "Servicing (rendering) provider's NPI",
                "Data Accuracy",
            ),
        ],
        service=[
            jcheck(
                f"{sub} | [0].procedures",
                [
                    {"code": s.cpt, "units": s.quantity, "laterality": s.laterality}
                    for s in ref.services
                ],
                1,
                "CPT codes, units and laterality as on the referral",
                "Data Accuracy",
            ),
            jcheck(
                f"{sub} | [0].service_date",
                ref.appointment,
                1,
                "Service starts on the appointment date",
                "Data Accuracy",
            ),
        ],
        number="reference number",
    )

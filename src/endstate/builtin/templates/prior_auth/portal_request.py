"""Medium: carry the referral into Payer A's form, bring the confirmation back."""

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
    replace_attachment,
)
from endstate.builtin.templates.prior_auth.facts import (
    FAMILY,
    answer,
    coverage_pays_first,
    download_file_name,
    payer_a_request_steps,
    plan_portal,
    record_submission_note,
    referral_given_values,
    referral_intro,
    services_need_auth,
    submission_checks,
)
from endstate.builtin.templates.prior_auth.information_request import pended
from endstate.envs.world import Document, Referral


def _newer_decoy(w: WorldView, referral_id: str) -> bool:
    """A decoy letter dated after the current one: the trap a "newest letter" habit falls in."""
    decoy, current = w.decoy_lmn(referral_id), w.current_lmn(referral_id)
    return decoy is not None and current is not None and decoy.date > current.date


class PortalRequest(TaskTemplate):
    """Medium: carry the referral into Payer A's form, bring the confirmation back."""

    id = "pa.medium.portal-request"
    family = FAMILY
    tier = "medium"
    scenario_label = "authorization_request"
    decoy = False

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for r in w.world.referrals:
            lmn = w.current_lmn(r.id)
            if (
                plan_portal(w, r) == "payer_a"
                and coverage_pays_first(w, r)
                and not r.existing_auth
                and pended(w, r.id) is None
                and any(services_need_auth(w, r))
                and lmn is not None
                and w.unambiguous(lmn)
                and (not self.decoy or _newer_decoy(w, r.id))
            ):
                out.append(r.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        lmn = w.current_lmn(ref.id)
        assert lmn is not None
        decoy = w.decoy_lmn(ref.id)
        t = Traj()
        t.ehr_origin()
        payer_a_request_steps(t, w, ref, lmn)
        body = record_submission_note(t, w, ref, "Confirmation number ${conf}.")
        return Draft(
            key=ref.id,
            instruction=(
                f"{referral_intro(w, ref)} needs prior authorization before the appointment. "
                "Submit "
                "the request to the payer's provider portal with the referral's diagnoses, "
                "services and date of service, the rendering provider, and the current signed "
                "letter of medical necessity attached. Then record the submission, with the "
                "confirmation number the payer gives you, as an authorization determination "
                "note and clear the referral."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=self._checks(w, ref, lmn),
            expected_outcome="one accurate request on Payer A; its confirmation number in the "
            "EHR note; referral cleared",
            rationale="The plan requires authorization for at least one scheduled service and "
            "accepts requests through its portal.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(w, t, body, decoy),
            given=referral_given_values(w, ref),
            answer=answer(w, ref, "request", cov=w.coverages[ref.coverage_id], attach=[lmn]),
        )

    def _checks(self, w: WorldView, ref: Referral, lmn: Document) -> list[dict[str, object]]:
        """The request as Payer A's form takes it; never the decoy letter, where there is one."""
        checks = form_checks(ref, lmn, w.coverages[ref.coverage_id].member_id)
        """The request as Payer A's form takes it; never a draft or superseded letter."""
        checks += decoys_unsent(w.decoy_lmns(ref.id), 2)
        return checks

    def _mutations(
        self, w: WorldView, t: Traj, body: str, decoy: Document | None
    ) -> list[Mutation]:
        """A made-up confirmation number; and the decoy letter attached, where there is one."""
        mutations = [
            *drop_mutations(t),
            fake_confirmation(t, "note-body", body, "PA-7KQ2M9XW4T"),
        ]
        if decoy is not None:
            mutations.append(
                Mutation(
                    "decoy",
                    "decoy",
                    f"attach the {decoy.status} letter instead of the current one",
                    replace_attachment(t, w.doc_link(decoy), download_file_name(decoy)),
                )
            )
        return mutations


def form_checks(ref: Referral, lmn: Document, member_id: str) -> list[dict[str, object]]:
    """One request for `member_id` as Payer A's form takes it, its number noted, cleared."""
    sub = f"payer_a.pa_submissions[?member_id=={q(member_id)}]"
    return submission_checks(
        sub,
        ref,
        lmn,
        providers=[
            jcheck(
                f"{sub} | [0].provider_npi",
                ref.provider_npi,
                1,
                "Rendering provider's NPI",
                "Data Accuracy",
            ),
        ],
        service=[
            jcheck(
                f"{sub} | [0].procedures",
                [{"code": s.cpt, "units": s.quantity} for s in ref.services],
                1,
                "CPT codes and units as on the referral",
                "Data Accuracy",
            ),
            jcheck(
                f"{sub} | [0].service_date",
                ref.appointment,
                1,
                "Date of service is the appointment date",
                "Data Accuracy",
            ),
        ],
        number="confirmation number",
    )

"""Hard: the referral was registered with the patient's secondary coverage — request from the
primary, which authorizes first."""

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
    fax_digits,
    jcheck,
    notes_text,
    q,
    replace_attachment,
    replace_value,
)
from endstate.builtin.templates.prior_auth.facts import (
    FAMILY,
    answer,
    download_file_name,
    primary_coverage_for,
    record_submission_note,
    referral_given_values,
    referral_intro,
    request_by_plan_channel,
)
from endstate.builtin.templates.prior_auth.portal_request import form_checks
from endstate.builtin.templates.prior_auth.wizard_request import wizard_checks
from endstate.envs.world import Coverage, Document, Referral


class CoordinationOfBenefits(TaskTemplate):
    """Hard: the referral was registered with the secondary coverage; the primary authorizes."""

    id = "pa.hard.coordination-of-benefits"
    family = FAMILY
    tier = "hard"
    scenario_label = "authorization_request"

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for r in w.world.referrals:
            primary = primary_coverage_for(w, r)
            portal = w.plan_of(primary.id).portal if primary else None
            lmn = w.current_lmn(r.id)
            if (
                portal in ("payer_a", "payer_b")
                and lmn is not None
                and w.unambiguous(lmn)
                and len(r.services) <= 3
            ):
                out.append(r.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        primary = primary_coverage_for(w, ref)
        lmn = w.current_lmn(ref.id)
        assert primary is not None and lmn is not None
        secondary = w.coverages[ref.coverage_id]
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id, "coverages")
        start = len(t.steps)
        receipt = request_by_plan_channel(t, w, ref, lmn, primary)
        body = self._note(t, w, ref, primary, secondary, receipt)
        return Draft(
            key=ref.id,
            instruction=(
                f"{referral_intro(w, ref)} needs prior authorization before the appointment. "
                "Submit "
                "the request to the payer's provider portal with the referral's diagnoses, "
                "services and date of service, the providers, and the current signed letter "
                "of medical necessity attached. Then record the submission, with the number "
                "the payer gives you, as an authorization determination note and clear the "
                "referral."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=self._checks(w, ref, lmn, primary, secondary),
            expected_outcome="one accurate request to the primary coverage's payer, none to the "
            "secondary the referral was registered with; its number in the EHR note; referral "
            "cleared",
            rationale=f"The referral was registered with {w.plan_of(secondary.id).name}, the "
            f"patient's secondary coverage; {w.plan_of(primary.id).name} is primary and "
            "authorizes first (the payer's eligibility check says so, and the letter is "
            "addressed to it).",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(w, ref, lmn, t, start, (body, receipt), secondary),
            given=referral_given_values(w, ref),
            answer=answer(w, ref, "request", cov=primary, attach=[lmn]),
        )

    def _note(
        self,
        t: Traj,
        w: WorldView,
        ref: Referral,
        primary: Coverage,
        secondary: Coverage,
        receipt: str,
    ) -> str:
        """The submission note, saying which coverage was used and why; the body."""
        coordination = (
            f"Referral was registered with {w.plan_of(secondary.id).name}, the secondary "
            f"coverage; requested from the primary, {w.plan_of(primary.id).name} "
            f"(member {primary.member_id})."
        )
        return record_submission_note(t, w, ref, f"{coordination} {receipt}", primary)

    def _checks(
        self, w: WorldView, ref: Referral, lmn: Document, primary: Coverage, secondary: Coverage
    ) -> list[dict[str, object]]:
        """The request as the primary's portal takes it; nothing sent for the secondary; no
        draft or superseded letter sent anywhere; the note names the primary coverage."""
        plan = w.plan_of(primary.id)
        build = form_checks if plan.portal == "payer_a" else wizard_checks
        checks = build(ref, lmn, primary.member_id)
        member = q(secondary.member_id)
        to_secondary = (
            f"length(payer_a.pa_submissions[?member_id=={member}] || `[]`) == `0` && "
            f"length(payer_b.pa_submissions[?member_id=={member}] || `[]`) == `0` && "
            "length(fax.transmissions[?fax_number=="
            f"{q(fax_digits(w.plan_of(secondary.id).fax))} && patient_mrn=={q(ref.mrn)}] "
            "|| `[]`) == `0`"
        )
        names = [plan.name, plan.payer, primary.member_id]
        return [
            *checks,
            *decoys_unsent(w.decoy_lmns(ref.id), 2),
            jcheck(
                to_secondary,
                True,
                2,
                "No request went to the secondary coverage the referral was registered with",
                "Safety",
            ),
            jcheck(
                " || ".join(f"contains({notes_text(ref.id)}, {q(n)})" for n in names),
                True,
                1,
                "The note names the primary coverage the request went to",
                "Documentation",
            ),
        ]

    def _mutations(
        self,
        w: WorldView,
        ref: Referral,
        lmn: Document,
        t: Traj,
        start: int,
        note: tuple[str, str],
        secondary: Coverage,
    ) -> list[Mutation]:
        """Follow the registration (the request to the secondary), a made-up number, a note
        that never says which coverage was used, and the decoy letter attached, where there is
        one."""
        followed = Traj()
        receipt = request_by_plan_channel(followed, w, ref, lmn, secondary)
        record_submission_note(followed, w, ref, receipt, secondary)
        instead = [{"op": "drop", "at": i} for i in range(start, len(t.steps))]
        instead.append({"op": "insert", "at": start, "steps": followed.steps})
        body, receipt = note
        fake = "PA-7KQ2M9XW4T" if receipt.startswith("Confirmation") else "RQ-7KQ2M9XW4T"
        vague = f"Prior authorization request submitted for referral {ref.id}. {receipt}"
        decoys = [
            Mutation(
                "decoy",
                "decoy",
                f"attach the {d.status} letter instead of the current one",
                replace_attachment(t, w.doc_link(d), download_file_name(d)),
            )
            for d in w.decoy_lmns(ref.id)[:1]
        ]
        return [
            *drop_mutations(t),
            *decoys,
            Mutation(
                "registered-coverage",
                "decoy",
                "request from the secondary coverage the referral was registered with",
                instead,
            ),
            fake_confirmation(t, "note-body", body, fake),
            Mutation(
                "coverage-unnamed",
                "wrong-value",
                "note the submission without naming the coverage it went to",
                replace_value(t, "note-body", vague),
            ),
        ]

"""Medium: a plan without a portal takes requests by fax; the transmission id comes back."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    DETERMINATION,
    NO_VALUE,
    Draft,
    Mutation,
    Traj,
    WorldView,
    decoys_unsent,
    drop_mutations,
    fax_digits,
    jcheck,
    misdirected_fax,
    notes_text,
    q,
    replace_checked,
    requests_for,
)
from endstate.builtin.templates.prior_auth.facts import (
    FAMILY,
    answer,
    cleared_only_check,
    coverage_pays_first,
    determination_note_check,
    plan_portal,
    referral_given_values,
    referral_intro,
    services_need_auth,
    services_summary,
)
from endstate.envs.world import Document, Referral, mdy


class FaxRequest(TaskTemplate):
    """Medium: a plan without a portal takes requests by fax; the transmission id comes back."""

    id = "pa.medium.fax-request"
    family = FAMILY
    tier = "medium"
    scenario_label = "authorization_request"

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for r in w.world.referrals:
            lmn, note = w.current_lmn(r.id), w.clinical_note(r.id)
            if (
                plan_portal(w, r) is None
                and coverage_pays_first(w, r)
                and not r.existing_auth
                and any(services_need_auth(w, r))
                and lmn is not None
                and note is not None
                and w.unambiguous(lmn)
                and w.unambiguous(note)
            ):
                out.append(r.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        lmn, note = w.current_lmn(ref.id), w.clinical_note(ref.id)
        assert lmn is not None and note is not None
        decoy = w.decoy_lmn(ref.id)
        t = self._trajectory(w, ref, lmn, note)
        return Draft(
            key=ref.id,
            instruction=(
                f"{referral_intro(w, ref)} needs prior authorization before the appointment, and "
                "the "
                "plan takes requests by fax. Fax the request to the plan's utilization "
                "management line with the consultation note and the current signed letter of "
                "medical necessity, then record it, with the fax transmission id, as an "
                "authorization determination note and clear the referral."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=self._checks(w, ref, lmn, note),
            expected_outcome="one fax to the UM number with both documents; its id in the EHR "
            "note; referral cleared",
            rationale=f"{w.plan_of(ref.coverage_id).name} has no provider portal; requests go "
            "to UM by fax.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(w, ref, t, decoy),
            given=referral_given_values(w, ref),
            answer=answer(w, ref, "request", cov=w.coverages[ref.coverage_id], attach=[lmn, note]),
        )

    def _trajectory(self, w: WorldView, ref: Referral, lmn: Document, note: Document) -> Traj:
        """Fax the request from the chart to UM, then note its transmission id and clear."""
        plan = w.plan_of(ref.coverage_id)
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id, "coverages")
        t.referral(ref.id, "documents")
        t.open_fax()
        p = w.patients[ref.mrn]
        cover = (
            f"Prior authorization request for {p.first} {p.last}, DOB {mdy(p.dob)}, member "
            f"{w.coverages[ref.coverage_id].member_id}: {services_summary(ref)} on "
            f"{mdy(ref.appointment)}. Referral {ref.id}."
        )
        recipient = plan.delegated_to or f"{plan.payer} Utilization Management"
        t.send_fax(recipient, plan.fax, cover, [w.doc_label(note), w.doc_label(lmn)])
        body = (
            f"Prior authorization request faxed to {recipient} at {plan.fax} for "
            f"{services_summary(ref)}. Fax transmission ${{fx}}; awaiting determination."
        )
        t.referral_note(ref.id, "Prior authorization faxed", DETERMINATION, body)
        t.clear()
        return t

    def _checks(
        self, w: WorldView, ref: Referral, lmn: Document, note: Document
    ) -> list[dict[str, object]]:
        """One fax with both documents (never a draft or superseded letter, by any channel),
        its id noted, cleared."""
        digits = fax_digits(w.plan_of(ref.coverage_id).fax)
        sent = f"fax.transmissions[?fax_number=={q(digits)} && patient_mrn=={q(ref.mrn)}]"
        return [
            jcheck(
                f"length({sent})",
                1,
                2,
                "One fax for this patient went to the plan's utilization-management fax",
                "Task Resolution",
            ),
            jcheck(
                f"contains({sent} | [0].all_document_ids || `[]`, {q(lmn.id)})",
                True,
                1,
                "The current signed letter of medical necessity was sent",
                "Data Accuracy",
            ),
            jcheck(
                f"contains({sent} | [0].all_document_ids || `[]`, {q(note.id)})",
                True,
                1,
                "The consultation note was sent",
                "Data Accuracy",
            ),
            *decoys_unsent(w.decoy_lmns(ref.id), 2),
            jcheck(
                f"length({requests_for(ref.mrn)})",
                1,
                1,
                "No other request for this patient went out, by fax or on a portal",
                "Safety",
            ),
            jcheck(
                f"contains({notes_text(ref.id)}, {sent} | [0].id || {q(NO_VALUE)})",
                True,
                2,
                "The EHR note carries the fax transmission id the fax portal issued",
                "Documentation",
            ),
            cleared_only_check(ref.id),
            determination_note_check(ref.id),
        ]

    def _mutations(
        self, w: WorldView, ref: Referral, t: Traj, decoy: Document | None
    ) -> list[Mutation]:
        """Another plan's fax number; and the decoy letter in place of the current one."""
        mutations = [
            *drop_mutations(t),
            misdirected_fax(
                t, w.other_plan_fax(w.plan_of(ref.coverage_id).fax), "fax another plan's number"
            ),
        ]
        if decoy is not None:
            mutations.append(
                Mutation(
                    "decoy",
                    "decoy",
                    f"fax the {decoy.status} letter",
                    replace_checked(t, "fax-doc-1", w.doc_label(decoy)),
                )
            )
        return mutations

"""Medium: file the appeal on the payer's portal with the letter, case number back."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    NO_VALUE,
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    fake_confirmation,
    jcheck,
    q,
    replace_attachment,
)
from endstate.builtin.templates.denials.facts import (
    CONTACT_NAME,
    CONTACT_PHONE,
    FAMILY,
    NECESSITY,
    REASON_LABELS,
    answer,
    appeal_guards,
    appeal_window_open,
    chart_necessity_letter,
    denial_given_values,
    denial_intro,
    denial_reason,
    triage_notes_query,
    triaged_as_appeal_check,
)
from endstate.envs.systems.payer_a import controls as payer_a
from endstate.envs.systems.payer_b import controls as payer_b
from endstate.envs.world import Denial, Document, mdy
from endstate.envs.world.chart_files import file_name_of


class PortalAppeal(TaskTemplate):
    """Medium: file the appeal on the payer's portal with the letter, case number back."""

    id = "dn.medium.portal-appeal"
    family = FAMILY
    tier = "medium"
    scenario_label = "denial_appeal"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if appeal_window_open(w, d)
            and denial_reason(d)[1] in NECESSITY
            and w.plans[d.plan_id].portal in ("payer_a", "payer_b")
            and w.plans[d.plan_id].appeal_channel == "portal"
            and chart_necessity_letter(w, d) is not None
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        plan = w.plans[d.plan_id]
        lmn = chart_necessity_letter(w, d)
        assert lmn is not None
        group, carc = denial_reason(d)
        note = (
            f"Appeal for {group}-{carc} filed on the {plan.payer} portal with the letter of "
            "medical necessity. Appeal confirmation ${conf}."
        )
        t = self._trajectory(w, d, lmn, note)
        return Draft(
            key=d.claim_id,
            instruction=(
                f"{denial_intro(w, d)} should be appealed as not medically necessary in the "
                "payer's "
                "view. File the appeal electronically with the payer, with the current signed "
                "letter of medical necessity from the patient's chart attached (if the payer "
                f"asks for a contact, give {CONTACT_NAME}, {CONTACT_PHONE}). Then triage the "
                "claim as an appeal with a note that records the appeal confirmation number "
                "the payer gives you."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=self._checks(w, d, lmn),
            expected_outcome="one appeal on the payer's portal with the letter attached; claim "
            "triaged as appeal with the payer's confirmation number",
            rationale=f"{group}-{carc} is contested with the letter of medical necessity; "
            f"{plan.name} takes appeals on its portal.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(w, d, t, note),
            given=[*denial_given_values(w, d), "appeal", CONTACT_NAME, CONTACT_PHONE],
            answer=answer(w, d, "appeal", channel=plan.portal or "fax", attach=[lmn]),
        )

    def _trajectory(self, w: WorldView, d: Denial, lmn: Document, note: str) -> Traj:
        """Download the claim's letter, file on the portal, triage with its number."""
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=appeal")
        t.add(
            {"type": "download", "target": {"role": "link", "name": w.doc_link(lmn)}},
            mark="download",
        )
        t.goto(f"${{ehr}}/denials/{d.claim_id}")
        self._file(t, w, d, lmn)
        t.triage(d.claim_id, "appeal", note)
        return t

    def _file(self, t: Traj, w: WorldView, d: Denial, lmn: Document) -> None:
        """Sign in to the plan's portal and file the appeal with the downloaded letter."""
        plan = w.plans[d.plan_id]
        group, carc = denial_reason(d)
        why = (
            f"Claim {d.claim_id} was denied {group}-{carc}. The service was medically necessary "
            "as documented in the attached letter of medical necessity; please reprocess."
        )
        upload = {"type": "upload", "path": file_name_of(lmn)}
        if plan.portal == "payer_a":
            p = w.patients[d.mrn]
            t.payer_a_login(plan.payer, plan.portal_username or "")
            t.goto(payer_a.APPEAL_FORM)
            t.fill(payer_a.CLAIM_NUMBER, d.claim_id)
            t.fill(payer_a.MEMBER_ID, w.coverages[d.coverage_id].member_id)
            t.fill(payer_a.MEMBER_DOB, mdy(p.dob))
            t.select(payer_a.APPEAL_TYPE, "Level 1 provider appeal")
            t.fill(payer_a.APPEAL_REASON, why)
            t.fill(payer_a.CONTACT_NAME, CONTACT_NAME)
            t.fill(payer_a.CONTACT_PHONE, CONTACT_PHONE)
            t.add({**upload, "target": {"label": payer_a.ATTACHMENTS}}, mark="upload")
            t.click(payer_a.SUBMIT_APPEAL, writes="submit the appeal on the portal")
            t.capture("conf", {"role": "status"}, pattern=r"AP-[A-Z0-9]{10}")
        else:
            t.payer_b_login(plan.payer, plan.portal_username or "")
            t.goto(f"/appeals/file?claim_id={d.claim_id}")
            t.select(payer_b.APPEAL_REASON, REASON_LABELS[NECESSITY[carc]])
            t.fill(payer_b.EXPLANATION, why)
            t.add({**upload, "target": {"label": payer_b.SUPPORTING_DOCUMENTS}}, mark="upload")
            t.click(payer_b.SUBMIT_APPEAL, writes="submit the appeal on the portal")
            t.capture("conf", {"role": "status"}, pattern=r"GA-[A-Z0-9]{10}")

    def _checks(self, w: WorldView, d: Denial, lmn: Document) -> list[dict[str, object]]:
        """One appeal with the letter (and, on Payer B, the right reason), its number noted."""
        system = w.plans[d.plan_id].portal or ""
        filed = f"{system}.appeals[?claim_id=={q(d.claim_id)}]"
        reason: list[dict[str, object]] = []
        if system == "payer_b":
            reason.append(
                jcheck(
                    f"{filed} | [0].reason",
                    NECESSITY[denial_reason(d)[1]],
                    1,
                    "The appeal reason matches the denial",
                    "Clinical Reasoning",
                )
            )
        return [
            jcheck(
                f"length({filed})",
                1,
                2,
                "One appeal for the claim reached the payer",
                "Task Resolution",
            ),
            jcheck(
                f"contains({filed} | [0].attachments[].document_id || `[]`, {q(lmn.id)})",
                True,
                1,
                "The current signed letter of medical necessity is attached",
                "Data Accuracy",
            ),
            *reason,
            *appeal_guards(w, d, system),
            triaged_as_appeal_check(d.claim_id),
            jcheck(
                f"contains({triage_notes_query(d.claim_id)}, "
                f"{filed} | [0].confirmation_number || {q(NO_VALUE)})",
                True,
                2,
                "The triage note carries the confirmation number the payer issued",
                "Documentation",
            ),
        ]

    def _mutations(self, w: WorldView, d: Denial, t: Traj, note: str) -> list[Mutation]:
        """A made-up number; another chart document attached, when the chart has one."""
        fake = "AP-7KQ2M9XW4T" if w.plans[d.plan_id].portal == "payer_a" else "GA-7KQ2M9XW4T"
        others = [
            x
            for x in w.docs_by_mrn[d.mrn]
            if x.kind not in ("lmn", "appeal_letter") and w.unambiguous(x)
        ]
        mutations = [
            *drop_mutations(t),
            fake_confirmation(t, "triage-note", note, fake),
        ]
        if others:
            wrong = others[0]
            mutations.append(
                Mutation(
                    "wrong-document",
                    "decoy",
                    f"attach {wrong.title} instead of the letter",
                    replace_attachment(t, w.doc_link(wrong), file_name_of(wrong)),
                )
            )
        return mutations

"""Denials and appeals templates: the EHR's denials worklist, the fax portal."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import Template
from endstate.builtin.templates.common import (
    DISPOSITION_LABELS,
    NO_VALUE,
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    fake_confirmation,
    fax_digits,
    jcheck,
    misdirected_fax,
    money,
    q,
    replace_attachment,
    replace_value,
    retarget,
    rubric,
)
from endstate.envs.systems.ehr.app import download_name as _download_name
from endstate.envs.world import Denial, Document, mdy

FAMILY = "appeals_denials"
# The next step an adjustment reason calls for, where the remittance alone settles it.
DISPOSITION_FOR = {
    "1": "bill-patient",  # deductible: the patient owes it
    "50": "appeal",  # medical necessity: argue it with documentation
    "16": "corrected-claim",  # missing information
    "4": "corrected-claim",  # modifier inconsistent with the procedure
    "11": "corrected-claim",  # diagnosis inconsistent with the procedure
}
NOT_APPEALED = ("1", "29")  # the patient's share; timely filing (N211: may not appeal)


def _reason(d: Denial) -> tuple[str, str]:
    line = next(x for x in d.lines if x.carc != "45")
    return line.group, line.carc


def _open(w: WorldView, d: Denial) -> bool:
    return d.appeal_deadline >= w.today


def _intro(w: WorldView, d: Denial) -> str:
    return f"Denied claim {d.claim_id} for {w.name(d.mrn)}"


def _intro_inline(w: WorldView, d: Denial) -> str:
    """The intro in mid-sentence ("Work denied claim ...")."""
    intro = _intro(w, d)
    return f"{intro[0].lower()}{intro[1:]}"


def _given(w: WorldView, d: Denial) -> list[str]:
    p = w.patients[d.mrn]
    return [d.claim_id, p.first, p.last]


def _dispo(claim_id: str) -> str:
    return f"ehr.denial_dispositions[?claim_id=={q(claim_id)}] | [0].disposition"


def _triage_text(claim_id: str) -> str:
    return (
        f"join(' ', ehr.denial_dispositions[?claim_id=={q(claim_id)}] | [0].triage_notes || `[]`)"
    )


def _triage_note(claim_id: str) -> str:
    return f"{{{{ ehr.denial_dispositions[?claim_id=={q(claim_id)}] | [0].triage_notes[-1] }}}}"


def _only(claim_id: str) -> dict[str, object]:
    return jcheck(
        "ehr.denial_dispositions[].claim_id",
        [claim_id],
        1,
        f"Claim {claim_id} (and no other) was triaged",
        "Task Resolution",
    )


def _cites(claim_id: str, group: str, carc: str) -> str:
    text = _triage_text(claim_id)
    return " || ".join(
        f"contains({text}, {q(form)})" for form in (f"{group}-{carc}", f"{group} {carc}")
    )


def _other_disposition(expected: str) -> str:
    return "write-off" if expected != "write-off" else "appeal"


def _cites_check(claim_id: str, group: str, carc: str) -> dict[str, object]:
    """The triage note names the reason the claim was worked on (either written form)."""
    return jcheck(
        _cites(claim_id, group, carc),
        True,
        1,
        "The triage note cites the adjustment reason code",
        "Documentation",
    )


def _triaged_as_appeal(claim_id: str) -> dict[str, object]:
    """An appeal sent is only half the work: the worklist must say so too."""
    return jcheck(_dispo(claim_id), "appeal", 1, "Claim triaged as an appeal", "Task Resolution")


def _no_appeal(d: Denial) -> str:
    """Nothing went to a payer to contest the claim: no portal appeal, no fax."""
    return (
        f"length(payer_a.appeals[?claim_id=={q(d.claim_id)}]) == `0` && "
        f"length(payer_b.appeals[?claim_id=={q(d.claim_id)}]) == `0` && "
        f"length(fax.transmissions[?patient_mrn=={q(d.mrn)}]) == `0`"
    )


def _chart_letter(w: WorldView, d: Denial) -> tuple[str, Document] | None:
    """(referral id, document) of a current signed letter in the patient's chart."""
    for ref in w.referrals_by_mrn.get(d.mrn, []):
        lmn = w.current_lmn(ref.id)
        if lmn is not None and w.unambiguous(lmn):
            return ref.id, lmn
    return None


def _wrong_disposition(
    t: Traj, disposition: str, why: str = "choose a disposition the reason does not call for"
) -> Mutation:
    """The same triage with another disposition: the decision is what the task tests."""
    return Mutation(
        "wrong-disposition",
        "wrong-value",
        why,
        replace_value(t, "disposition", DISPOSITION_LABELS[disposition]),
    )


def _appeal_anyway(t: Traj) -> Mutation:
    """Appeal a denial that must not be contested (window closed, duplicate claim)."""
    return Mutation(
        "appeal-anyway",
        "wrong-action",
        "triage it as an appeal",
        replace_value(t, "disposition", DISPOSITION_LABELS["appeal"]),
    )


def _look_alike(t: Traj, d: Denial, look: Denial) -> Mutation:
    """Do all the work, on the wrong claim (`look`: chosen by the caller, in rng order)."""
    return Mutation(
        "look-alike",
        "look-alike",
        f"triage claim {look.claim_id} instead",
        retarget(t.steps, d.claim_id, look.claim_id),
    )


class TriageByReason(Template):
    """Easy: read the adjustment reason, pick the disposition it calls for, note why."""

    id = "dn.easy.triage-by-reason"
    family = FAMILY
    tier = "easy"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id for d in w.world.denials if _open(w, d) and _reason(d)[1] in DISPOSITION_FOR
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = _reason(d)
        expected = DISPOSITION_FOR[carc]
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=remittance")
        note = (
            f"Denied {group}-{carc}. {DISPOSITION_LABELS[expected]} is the next step for this "
            f"reason; appeal deadline {mdy(d.appeal_deadline)}."
        )
        t.triage(d.claim_id, expected, note)
        look = w.lookalike_denial(d, rng)
        checks = [
            jcheck(_dispo(d.claim_id), expected, 3, "Disposition", "Clinical Reasoning"),
            _only(d.claim_id),
            _cites_check(d.claim_id, group, carc),
            rubric(
                _triage_note(d.claim_id),
                "triage note",
                "The note explains the disposition",
                f"Does the note identify the denial reason ({group}-{carc}) and give a next "
                f"step consistent with '{DISPOSITION_LABELS[expected]}'?",
            ),
        ]
        return Draft(
            key=d.claim_id,
            instruction=(
                f"{_intro(w, d)} needs to be worked. Work out the right next "
                "step from the payer's denial reason, set the claim's disposition accordingly "
                "and write a triage note that cites the adjustment reason with its group code "
                "and reason code."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=checks,
            expected_outcome=f"disposition {expected}; note cites {group}-{carc}",
            rationale=f"{group}-{carc} calls for: {DISPOSITION_LABELS[expected]}.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                _wrong_disposition(t, _other_disposition(expected)),
                _look_alike(t, d, look),
            ],
            given=_given(w, d),
        )


class AppealByFax(Template):
    """Medium: fax the appeal with the chart's letter, bring the transmission id back."""

    id = "dn.medium.appeal-by-fax"
    family = FAMILY
    tier = "medium"
    scenario_label = "denial_appeal"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if _open(w, d) and _reason(d)[1] not in NOT_APPEALED and _chart_letter(w, d) is not None
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        plan = w.plans[d.plan_id]
        found = _chart_letter(w, d)
        assert found is not None
        rid, lmn = found
        group, carc = _reason(d)
        digits = fax_digits(plan.fax)
        p = w.patients[d.mrn]
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}")
        t.referral(rid, "documents")
        t.open_fax()
        cover = (
            f"Appeal of claim {d.claim_id} for {p.first} {p.last}, DOB {mdy(p.dob)}, date of "
            f"service {mdy(d.service_date)}, denied {group}-{carc}. Supporting letter of "
            "medical necessity attached."
        )
        t.send_fax(f"{plan.payer} Appeals", plan.fax, cover, [w.doc_label(lmn)])
        note = (
            f"Appeal for {group}-{carc} faxed to {plan.payer} at {plan.fax} with the letter of "
            "medical necessity. Fax transmission ${fx}."
        )
        t.triage(d.claim_id, "appeal", note)
        sent = f"fax.transmissions[?fax_number=={q(digits)}]"
        checks = [
            jcheck(
                f"length({sent})",
                1,
                2,
                "One fax went to the payer's appeals fax",
                "Task Resolution",
            ),
            jcheck(
                f"{sent} | [0].patient_mrn",
                d.mrn,
                1,
                "Sent from this patient's chart",
                "Data Accuracy",
            ),
            jcheck(
                f"contains({sent} | [0].cover_note || '', {q(d.claim_id)})",
                True,
                1,
                "The cover note identifies the claim",
                "Data Accuracy",
            ),
            jcheck(
                f"contains({sent} | [0].all_document_ids || `[]`, {q(lmn.id)})",
                True,
                1,
                "The letter of medical necessity was attached",
                "Data Accuracy",
            ),
            _triaged_as_appeal(d.claim_id),
            jcheck(
                f"contains({_triage_text(d.claim_id)}, {sent} | [0].id || {q(NO_VALUE)})",
                True,
                2,
                "The triage note carries the transmission id the fax portal issued",
                "Documentation",
            ),
            rubric(
                _triage_note(d.claim_id),
                "triage note",
                "The note documents the appeal",
                "Does the note say that an appeal was faxed to the payer and give the fax "
                "transmission id?",
            ),
        ]
        return Draft(
            key=d.claim_id,
            instruction=(
                f"{_intro(w, d)} should be appealed. Fax the appeal to the payer's appeals fax "
                "number from the patient's chart, with a cover note that identifies the claim "
                "and the current signed letter of medical necessity attached. Then triage the "
                "claim as an appeal with a note that records the fax transmission id."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=checks,
            expected_outcome="one fax to the appeals number naming the claim, letter attached; "
            "claim triaged as appeal with the transmission id",
            rationale=f"{group}-{carc} is contested with documentation; the payer takes "
            "appeals by fax.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                misdirected_fax(t, w.other_plan_fax(plan.fax), "fax another payer's number"),
                Mutation(
                    "no-claim",
                    "wrong-value",
                    "a cover note that does not name the claim",
                    replace_value(t, "fax-cover", cover.replace(d.claim_id, "the claim")),
                ),
            ],
            given=[*_given(w, d), "appeal"],
        )


class WindowClosed(Template):
    """Hard: the appeal deadline has passed — do not appeal; write off and say why."""

    id = "dn.hard.appeal-window-closed"
    family = FAMILY
    tier = "hard"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if not _open(w, d) and _reason(d)[1] not in ("1", "29")
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = _reason(d)
        deadline = mdy(d.appeal_deadline)
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}")
        note = (
            f"Denied {group}-{carc}. The appeal deadline was {deadline} and has passed, so no "
            "appeal can be filed. Writing off per policy; flagged for the denial-prevention "
            "review."
        )
        t.triage(d.claim_id, "write-off", note)
        checks = [
            jcheck(_dispo(d.claim_id), "write-off", 3, "Disposition", "Clinical Reasoning"),
            jcheck(
                f"length(fax.transmissions[?patient_mrn=={q(d.mrn)}])",
                0,
                2,
                "No appeal was faxed after the deadline",
                "Safety",
            ),
            jcheck(
                f"contains({_triage_text(d.claim_id)}, {q(deadline)})",
                True,
                1,
                "The triage note states the appeal deadline",
                "Data Accuracy",
            ),
            _only(d.claim_id),
            rubric(
                _triage_note(d.claim_id),
                "triage note",
                "The note explains why the claim was not appealed",
                f"Does the note say the appeal deadline ({deadline}) has passed and that the "
                "claim is therefore not appealed?",
            ),
        ]
        return Draft(
            key=d.claim_id,
            instruction=(
                f"Work {_intro_inline(w, d)}: appeal it if an appeal can "
                "still be filed; otherwise choose the appropriate disposition. Either way, "
                "write a triage note that states the appeal deadline (MM/DD/YYYY) and the "
                "reason for your choice."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=checks,
            expected_outcome="written off; nothing faxed; note states the passed deadline",
            rationale=f"The appeal deadline {deadline} is before today "
            f"({mdy(w.today)}): the denial can no longer be appealed.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                _appeal_anyway(t),
                Mutation(
                    "no-deadline",
                    "wrong-value",
                    "a note without the deadline",
                    replace_value(t, "triage-note", note.replace(f"was {deadline}", "was earlier")),
                ),
            ],
            given=_given(w, d),
        )


class DeniedAmount(Template):
    """Hard: a calculation from the line items — the billed total of the denied lines."""

    id = "dn.hard.denied-amount"
    family = FAMILY
    tier = "hard"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if _open(w, d) and _reason(d)[1] in DISPOSITION_FOR and len(d.lines) >= 2
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = _reason(d)
        expected = DISPOSITION_FOR[carc]
        denied = round(sum(x.billed for x in d.lines if x.carc != "45"), 2)
        total = round(sum(x.billed for x in d.lines), 2)
        wrong = total if abs(total - denied) > 0.005 else round(denied / 2, 2)
        if f"{denied:.2f}" in f"{wrong:.2f} {money(wrong)}":
            wrong = round(denied + 10.01, 2)
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=lines")
        note = (
            f"Denied {group}-{carc}; denied lines total ${money(denied)} billed. "
            f"{DISPOSITION_LABELS[expected]} is the next step for this reason."
        )
        t.triage(d.claim_id, expected, note)
        amount = " || ".join(
            f"contains({_triage_text(d.claim_id)}, {q(form)})"
            for form in sorted({f"{denied:.2f}", money(denied)})
        )
        checks = [
            jcheck(_dispo(d.claim_id), expected, 2, "Disposition", "Clinical Reasoning"),
            jcheck(
                amount, True, 2, "The note states the denied lines' billed total", "Data Accuracy"
            ),
            _only(d.claim_id),
            rubric(
                _triage_note(d.claim_id),
                "triage note",
                "The note states the amount at stake and the next step",
                f"Does the note state that the denied lines total ${money(denied)} and give a "
                f"next step consistent with '{DISPOSITION_LABELS[expected]}'?",
            ),
        ]
        return Draft(
            key=d.claim_id,
            instruction=(
                f"Triage {_intro_inline(w, d)}. Decide the disposition "
                "from the payer's denial reason, and in the triage note state the total billed "
                "amount of the denied lines (the lines the payer paid nothing on), in dollars "
                "and cents."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=checks,
            expected_outcome=f"disposition {expected}; note states ${money(denied)}",
            rationale=f"Denied lines sum to ${money(denied)} of ${money(total)} billed.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                Mutation(
                    "wrong-amount",
                    "wrong-value",
                    "state the wrong amount",
                    replace_value(
                        t,
                        "triage-note",
                        note.replace(f"${money(denied)}", f"${money(wrong)}"),
                    ),
                ),
                _wrong_disposition(t, _other_disposition(expected)),
            ],
            given=_given(w, d),
        )


# Denials a letter of medical necessity answers, and Payer B's reason for them.
NECESSITY = {"50": "medical-necessity"}
REASON_LABELS = {"medical-necessity": "Medical necessity"}
CONTACT_NAME, CONTACT_PHONE = "J. Rivera", "(415) 555-0100"


class PortalAppeal(Template):
    """Medium: file the appeal on the payer's portal with the letter, case number back."""

    id = "dn.medium.portal-appeal"
    family = FAMILY
    tier = "medium"
    scenario_label = "denial_appeal"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if _open(w, d)
            and _reason(d)[1] in NECESSITY
            and w.plans[d.plan_id].portal in ("payer_a", "payer_b")
            and _chart_letter(w, d) is not None
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        plan = w.plans[d.plan_id]
        system = plan.portal or ""
        found = _chart_letter(w, d)
        assert found is not None
        rid, lmn = found
        group, carc = _reason(d)
        cov = w.coverages[d.coverage_id]
        p = w.patients[d.mrn]
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}")
        t.download(rid, w.doc_link(lmn))
        t.referral(rid, "coverages")
        why = (
            f"Claim {d.claim_id} was denied {group}-{carc}. The service was medically necessary "
            "as documented in the attached letter of medical necessity; please reprocess."
        )
        upload = {"type": "upload", "path": _download_name(lmn.id, lmn.title)}
        if system == "payer_a":
            t.payer_a_login(plan.payer, plan.portal_username or "", plan.portal_password or "")
            t.goto("/appeals/new")
            t.fill("Claim number", d.claim_id)
            t.fill("Member ID", cov.member_id)
            t.fill("Member date of birth", mdy(p.dob))
            t.select("Appeal type", "Level 1 provider appeal")
            t.fill("Reason for appeal", why)
            t.fill("Contact name", CONTACT_NAME)
            t.fill("Contact phone", CONTACT_PHONE)
            t.add({**upload, "target": {"label": "Attachments"}}, mark="upload")
            t.click("Submit appeal", writes="submit the appeal on the portal")
            t.capture("conf", {"role": "status"}, pattern=r"AP-[A-Z0-9]{10}")
            fake = "AP-7KQ2M9XW4T"
        else:
            t.payer_b_login(plan.payer, plan.portal_username or "", plan.portal_password or "")
            t.goto(f"/appeals/file?claim_id={d.claim_id}")
            t.select("Reason for appeal", REASON_LABELS[NECESSITY[carc]])
            t.fill("Explanation", why)
            t.add({**upload, "target": {"label": "Supporting documents"}}, mark="upload")
            t.click("Submit appeal", writes="submit the appeal on the portal")
            t.capture("conf", {"role": "status"}, pattern=r"GA-[A-Z0-9]{10}")
            fake = "GA-7KQ2M9XW4T"
        note = (
            f"Appeal for {group}-{carc} filed on the {plan.payer} portal with the letter of "
            "medical necessity. Appeal confirmation ${conf}."
        )
        t.triage(d.claim_id, "appeal", note)
        filed = f"{system}.appeals[?claim_id=={q(d.claim_id)}]"
        checks: list[dict[str, object]] = [
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
            _triaged_as_appeal(d.claim_id),
            jcheck(
                f"contains({_triage_text(d.claim_id)}, "
                f"{filed} | [0].confirmation_number || {q(NO_VALUE)})",
                True,
                2,
                "The triage note carries the confirmation number the payer issued",
                "Documentation",
            ),
            rubric(
                _triage_note(d.claim_id),
                "triage note",
                "The note documents the appeal",
                "Does the note say that an appeal was filed with the payer electronically and "
                "give the payer's appeal confirmation or case number?",
            ),
        ]
        if system == "payer_b":
            checks.insert(
                2,
                jcheck(
                    f"{filed} | [0].reason",
                    NECESSITY[carc],
                    1,
                    "The appeal reason matches the denial",
                    "Clinical Reasoning",
                ),
            )
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
                    replace_attachment(t, w.doc_link(wrong), _download_name(wrong.id, wrong.title)),
                )
            )
        return Draft(
            key=d.claim_id,
            instruction=(
                f"{_intro(w, d)} should be appealed as not medically necessary in the payer's "
                "view. File the appeal electronically with the payer, with the current signed "
                "letter of medical necessity from the patient's chart attached (if the payer "
                f"asks for a contact, give {CONTACT_NAME}, {CONTACT_PHONE}). Then triage the "
                "claim as an appeal with a note that records the appeal confirmation number "
                "the payer gives you."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=checks,
            expected_outcome="one appeal on the payer's portal with the letter attached; claim "
            "triaged as appeal with the payer's confirmation number",
            rationale=f"{group}-{carc} is contested with the letter of medical necessity; "
            f"{plan.name} takes appeals on its portal.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=[*_given(w, d), "appeal", CONTACT_NAME, CONTACT_PHONE],
        )


class AppealLetter(Template):
    """Easy: build the appeal letter in the EHR for exactly the denied lines, then triage."""

    id = "dn.easy.appeal-letter"
    family = FAMILY
    tier = "easy"
    scenario_label = "denial_appeal"

    def candidates(self, w: WorldView) -> list[str]:
        return [d.claim_id for d in w.world.denials if _open(w, d) and _reason(d)[1] in NECESSITY]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = _reason(d)
        plan = w.plans[d.plan_id]
        denied = [x for x in d.lines if x.carc != "45"]
        paid = [x for x in d.lines if x.carc == "45"]
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=lines")
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=appeal")
        t.fill("Addressed to", f"{plan.payer} Appeals Department")
        t.select("Basis for appeal", "Service was medically necessary", mark="basis")
        for x in denied:
            t.add({"type": "check", "target": {"label": f"Line {x.line}: CPT {x.cpt}"}})
        t.fill(
            "Argument",
            f"The services on the appealed lines were medically necessary for this patient, as "
            f"documented in the chart; the {group}-{carc} denial should be reversed.",
        )
        t.fill("Signed by", CONTACT_NAME)
        t.click("Save letter to chart", writes="save the appeal letter to the chart")
        t.capture("doc", pattern=r"DOC-\d{5}")
        note = (
            f"Denied {group}-{carc}. Appeal letter ${{doc}} saved to the chart for the denied "
            "lines; appeal to follow."
        )
        t.triage(d.claim_id, "appeal", note)
        made = f"ehr.documents_created[?related_id=={q(d.claim_id)} && status=='final']"
        text = f"{made} | [0].text || ''"
        lines_ok = " && ".join(
            [f"contains({text}, {q(f'Line {x.line}: CPT {x.cpt}')})" for x in denied]
            + [f"!contains({text}, {q(f'Line {x.line}: CPT {x.cpt}')})" for x in paid]
        )
        checks: list[dict[str, object]] = [
            jcheck(
                f"length({made})",
                1,
                2,
                "An appeal letter for the claim was saved to the chart",
                "Task Resolution",
            ),
            jcheck(
                f"contains({text}, 'Basis for appeal: Service was medically necessary.')",
                True,
                2,
                "The letter argues the ground the payer denied on (medical necessity)",
                "Clinical Reasoning",
            ),
            jcheck(
                lines_ok,
                True,
                1,
                "The letter appeals the denied lines and no paid line",
                "Data Accuracy",
            ),
            jcheck(f"{made} | [0].author", CONTACT_NAME, 1, "Signed as asked", "Data Accuracy"),
            _triaged_as_appeal(d.claim_id),
            jcheck(
                f"contains({_triage_text(d.claim_id)}, {made} | [0].id || {q(NO_VALUE)})",
                True,
                1,
                "The triage note gives the letter's document id",
                "Documentation",
            ),
        ]
        mutations = [
            *drop_mutations(t),
            Mutation(
                "wrong-basis",
                "wrong-value",
                "argue corrected coding instead",
                replace_value(t, "basis", "Corrected coding"),
            ),
            Mutation(
                "fake-document",
                "wrong-value",
                "give a document id the chart never issued",
                replace_value(t, "triage-note", note.replace("${doc}", "DOC-99999")),
            ),
        ]
        if paid:
            mutations.append(
                Mutation(
                    "paid-line",
                    "look-alike",
                    f"appeal paid line {paid[0].line} as well",
                    [
                        {
                            "op": "insert",
                            "at": t.marks["basis"] + 1,
                            "steps": [
                                {
                                    "type": "check",
                                    "target": {"label": f"Line {paid[0].line}: CPT {paid[0].cpt}"},
                                }
                            ],
                        }
                    ],
                )
            )
        return Draft(
            key=d.claim_id,
            instruction=(
                f"{_intro(w, d)} is to be appealed. Prepare the appeal letter in the patient's "
                "chart on the ground the payer denied it, appealing only the lines the payer "
                f"denied, addressed to the payer's appeals department and signed by "
                f"{CONTACT_NAME}. Then triage the claim as an appeal with a note that gives the "
                "letter's document id."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=checks,
            expected_outcome="one final appeal letter (medical necessity, denied lines only); "
            "claim triaged as appeal citing it",
            rationale=f"{group}-{carc} is a medical-necessity denial; the letter argues it for "
            "the denied lines.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=[*_given(w, d), "appeal", CONTACT_NAME],
        )


class BatchTriage(Template):
    """Hard: three denials at once, each with the disposition its own reason calls for."""

    id = "dn.hard.batch-triage"
    family = FAMILY
    tier = "hard"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        return TriageByReason().candidates(w)

    def _batch(self, w: WorldView, key: str, rng: random.Random) -> list[Denial]:
        pool = [w.denial(c) for c in self.candidates(w) if c != key]
        first = w.denial(key)
        chosen = [first]
        for _ in range(2):
            seen = {DISPOSITION_FOR[_reason(x)[1]] for x in chosen}
            fresh = [x for x in pool if DISPOSITION_FOR[_reason(x)[1]] not in seen]
            pick = rng.choice(fresh or pool)
            pool.remove(pick)
            chosen.append(pick)
        return chosen

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        batch = self._batch(w, key, rng)
        t = Traj()
        t.ehr_origin()
        checks: list[dict[str, object]] = []
        notes: list[str] = []
        for d in batch:
            group, carc = _reason(d)
            expected = DISPOSITION_FOR[carc]
            t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=remittance")
            note = (
                f"Denied {group}-{carc}. {DISPOSITION_LABELS[expected]} is the next step for "
                "this reason."
            )
            notes.append(note)
            t.triage(d.claim_id, expected, note)
            checks.append(
                jcheck(
                    _dispo(d.claim_id),
                    expected,
                    2,
                    f"Disposition of {d.claim_id}",
                    "Clinical Reasoning",
                )
            )
            checks.append(
                jcheck(
                    _cites(d.claim_id, group, carc),
                    True,
                    1,
                    f"The triage note on {d.claim_id} cites its adjustment reason code",
                    "Documentation",
                )
            )
        ids = sorted(d.claim_id for d in batch)
        checks.append(
            jcheck(
                "sort(ehr.denial_dispositions[].claim_id)",
                ids,
                2,
                "These three claims, and no other, were triaged",
                "Safety",
            )
        )
        last = batch[-1]
        others = [
            x
            for x in w.world.denials
            if x.claim_id not in ids and _open(w, x) and x.mrn != last.mrn
        ]
        look = rng.choice(others)
        start = len(t.steps) - 5  # the last claim's visit, disposition, note, submit
        wrong = _other_disposition(DISPOSITION_FOR[_reason(last)[1]])
        mutations = [
            *drop_mutations(t),
            _wrong_disposition(
                t, wrong, f"choose a disposition {last.claim_id}'s reason does not call for"
            ),
            Mutation(
                "look-alike",
                "look-alike",
                f"triage claim {look.claim_id} instead of {last.claim_id}",
                retarget(t.steps, last.claim_id, look.claim_id, start=start),
            ),
        ]
        listed = "; ".join(f"{d.claim_id} for {w.name(d.mrn)}" for d in batch)
        return Draft(
            key=key,
            instruction=(
                f"Three denied claims are waiting for triage: {listed}. Work each of them: "
                "set the disposition its own denial reason calls for, and write a triage note "
                "that cites the adjustment reason with its group code and reason code. Leave "
                "other claims as they are."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=checks,
            expected_outcome="; ".join(
                f"{d.claim_id}: {DISPOSITION_FOR[_reason(d)[1]]}" for d in batch
            ),
            rationale="Each claim's disposition follows from its own adjustment reason.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=[x for d in batch for x in _given(w, d)],
        )


class DuplicateClaim(Template):
    """Hard: the payer denied an exact duplicate — nothing to contest; close it and say why."""

    id = "dn.hard.duplicate-claim"
    family = FAMILY
    tier = "hard"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        return [d.claim_id for d in w.world.denials if _open(w, d) and _reason(d)[1] == "18"]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = _reason(d)
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=lines")
        note = (
            f"Denied {group}-{carc}: exact duplicate of a claim already submitted for this "
            "service. Nothing to contest, so no appeal or corrected claim; writing off the "
            "duplicate charge."
        )
        t.triage(d.claim_id, "write-off", note)
        nothing = _no_appeal(d)
        checks: list[dict[str, object]] = [
            jcheck(_dispo(d.claim_id), "write-off", 3, "Disposition", "Clinical Reasoning"),
            jcheck(nothing, True, 2, "No appeal was filed for a duplicate claim", "Safety"),
            _cites_check(d.claim_id, group, carc),
            _only(d.claim_id),
            rubric(
                _triage_note(d.claim_id),
                "triage note",
                "The note explains why the claim is not contested",
                f"Does the note say the claim was denied as a duplicate ({group}-{carc}) and "
                "that it is therefore written off rather than appealed or resubmitted?",
            ),
        ]
        look = w.lookalike_denial(d, rng)
        return Draft(
            key=d.claim_id,
            instruction=(
                f"Work {_intro_inline(w, d)}: if the denial can properly "
                "be contested, appeal it with the payer; otherwise choose the appropriate "
                "disposition. Either way, write a triage note that cites the adjustment reason "
                "with its group code and reason code and says why you chose the disposition."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=checks,
            expected_outcome="written off; no appeal filed; note cites the duplicate denial",
            rationale=f"{group}-{carc} means the payer already has this service on another "
            "claim: there is nothing to appeal or correct.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                _appeal_anyway(t),
                _look_alike(t, d, look),
            ],
            given=_given(w, d),
        )


def _in_force(w: WorldView, d: Denial) -> list[str]:
    """Other coverages of the patient in force on the date of service (coverage ids)."""
    return [
        c.id
        for c in w.world.coverages
        if c.mrn == d.mrn
        and c.id != d.coverage_id
        and c.status == "active"
        and c.effective <= d.service_date
        and (c.termination is None or c.termination >= d.service_date)
    ]


class CoverageEvidence(Template):
    """Hard: a coordination-of-benefits or terminated-coverage denial; the remittance, the
    claim's date of service and the coverages on the patient's account decide together."""

    id = "dn.hard.coverage-evidence"
    family = FAMILY
    tier = "hard"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if _open(w, d) and _reason(d)[1] in ("22", "27") and len(_in_force(w, d)) <= 1
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = _reason(d)
        other = _in_force(w, d)
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=remittance")
        t.goto(f"${{ehr}}/patients/{d.mrn}?claim={d.claim_id}")
        dos = mdy(d.service_date)
        checks: list[dict[str, object]] = []
        if other:
            plan = w.plan_of(other[0])
            expected, wrong = (
                "bill-secondary",
                "bill-patient" if carc == "27" else "reconsideration",
            )
            note = (
                f"Denied {group}-{carc}. The patient's {plan.name} coverage was in force on "
                f"the date of service {dos}; billing that payer."
            )
            checks.append(
                jcheck(
                    f"contains({_triage_text(d.claim_id)}, {q(plan.name)})",
                    True,
                    1,
                    "The note names the other coverage the claim goes to",
                    "Data Accuracy",
                )
            )
            basis = f"{plan.name} was in force on {dos}"
            ask = f"names the {plan.name} coverage as in force on the date of service and"
        elif carc == "27":
            expected, wrong = "bill-patient", "bill-secondary"
            note = (
                f"Denied {group}-{carc}. No other coverage on the account was in force on the "
                f"date of service {dos}; the balance is the patient's responsibility."
            )
            basis = f"no other coverage was in force on {dos}"
            ask = "says no other coverage was in force on the date of service and"
        else:
            expected, wrong = "reconsideration", "bill-secondary"
            note = (
                f"Denied {group}-{carc}, but no other coverage on the account was in force on "
                f"the date of service {dos}. Asking the payer to reconsider as primary."
            )
            basis = f"no other coverage was in force on {dos}, so the payer is primary"
            ask = "says no other coverage was in force on the date of service and"
        t.triage(d.claim_id, expected, note)
        nothing = _no_appeal(d)
        checks = [
            jcheck(_dispo(d.claim_id), expected, 3, "Disposition", "Clinical Reasoning"),
            _cites_check(d.claim_id, group, carc),
            *checks,
            jcheck(nothing, True, 1, "No appeal was filed for the claim", "Safety"),
            _only(d.claim_id),
            rubric(
                _triage_note(d.claim_id),
                "triage note",
                "The note gives the evidence for the disposition",
                f"Does the note cite the denial ({group}-{carc}), {ask} give a next step "
                f"consistent with '{DISPOSITION_LABELS[expected]}'?",
            ),
        ]
        look = w.lookalike_denial(d, rng)
        return Draft(
            key=d.claim_id,
            instruction=(
                f"Decide the next step for {_intro_inline(w, d)}. The "
                "payer's denial reason alone does not settle it: weigh it against the "
                "insurance the patient had on the claim's date of service. Set the "
                "disposition and write a triage note that cites the adjustment reason with its "
                "group code and reason code and names the coverage your decision rests on (or "
                "says that there is none)."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=checks,
            expected_outcome=f"disposition {expected}",
            rationale=f"{group}-{carc} on a claim for {dos}: {basis}.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                _wrong_disposition(
                    t, wrong, "decide from the denial reason without the coverage evidence"
                ),
                _look_alike(t, d, look),
            ],
            given=_given(w, d),
        )


TEMPLATES: tuple[Template, ...] = (
    TriageByReason(),
    AppealByFax(),
    WindowClosed(),
    DeniedAmount(),
    PortalAppeal(),
    AppealLetter(),
    BatchTriage(),
    DuplicateClaim(),
    CoverageEvidence(),
)

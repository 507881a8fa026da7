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
    jcheck,
    money,
    q,
    replace_value,
    retarget,
    rubric,
)
from endstate.envs.world import Denial, mdy

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
            jcheck(
                _cites(d.claim_id, group, carc),
                True,
                1,
                "The triage note cites the adjustment reason code",
                "Documentation",
            ),
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
                Mutation(
                    "wrong-disposition",
                    "wrong-value",
                    "choose a disposition the reason does not call for",
                    replace_value(
                        t, "disposition", DISPOSITION_LABELS[_other_disposition(expected)]
                    ),
                ),
                Mutation(
                    "look-alike",
                    "look-alike",
                    f"triage claim {look.claim_id} instead",
                    retarget(t.steps, d.claim_id, look.claim_id),
                ),
            ],
            given=_given(w, d),
        )


class AppealByFax(Template):
    """Medium: fax the appeal with the chart's letter, bring the transmission id back."""

    id = "dn.medium.appeal-by-fax"
    family = FAMILY
    tier = "medium"
    scenario_label = "denial_appeal"

    def _letter(self, w: WorldView, d: Denial) -> tuple[str, str] | None:
        """(referral id, document id) of a current signed letter in the patient's chart."""
        for ref in w.referrals_by_mrn.get(d.mrn, []):
            lmn = w.current_lmn(ref.id)
            if lmn is not None and w.unambiguous(lmn):
                return ref.id, lmn.id
        return None

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if _open(w, d) and _reason(d)[1] not in NOT_APPEALED and self._letter(w, d) is not None
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        plan = w.plans[d.plan_id]
        found = self._letter(w, d)
        assert found is not None
        rid, lmn_id = found
        lmn = next(x for x in w.world.documents if x.id == lmn_id)
        group, carc = _reason(d)
        digits = "".join(c for c in plan.fax if c.isdigit())
        wrong = next(p.fax for p in w.world.plans if p.fax != plan.fax)
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
            jcheck(
                _dispo(d.claim_id), "appeal", 1, "Claim triaged as an appeal", "Task Resolution"
            ),
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
                Mutation(
                    "wrong-number",
                    "look-alike",
                    "fax another payer's number",
                    replace_value(t, "fax-number", wrong),
                ),
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
                f"Work {_intro(w, d)[0].lower()}{_intro(w, d)[1:]}: appeal it if an appeal can "
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
                Mutation(
                    "appeal-anyway",
                    "wrong-action",
                    "triage it as an appeal",
                    replace_value(t, "disposition", DISPOSITION_LABELS["appeal"]),
                ),
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
                f"Triage {_intro(w, d)[0].lower()}{_intro(w, d)[1:]}. Decide the disposition "
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
                Mutation(
                    "wrong-disposition",
                    "wrong-value",
                    "choose a disposition the reason does not call for",
                    replace_value(
                        t, "disposition", DISPOSITION_LABELS[_other_disposition(expected)]
                    ),
                ),
            ],
            given=_given(w, d),
        )


TEMPLATES: tuple[Template, ...] = (TriageByReason(), AppealByFax(), WindowClosed(), DeniedAmount())

"""Medium: fax the appeal with the chart's letter, bring the transmission id back."""

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
    fax_digits,
    jcheck,
    misdirected_fax,
    q,
    replace_value,
)
from endstate.builtin.templates.denials.facts import (
    FAMILY,
    NECESSITY,
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
from endstate.envs.world import Denial, Document, mdy


class AppealByFax(TaskTemplate):
    """Medium: fax the appeal with the chart's letter, bring the transmission id back."""

    id = "dn.medium.appeal-by-fax"
    family = FAMILY
    tier = "medium"
    scenario_label = "denial_appeal"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if appeal_window_open(w, d)
            and denial_reason(d)[1] in NECESSITY
            and chart_necessity_letter(w, d) is not None
            and w.plans[d.plan_id].appeal_channel == "fax"
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        lmn = chart_necessity_letter(w, d)
        assert lmn is not None
        group, carc = denial_reason(d)
        p = w.patients[d.mrn]
        form = w.plans[d.plan_id].appeal_form.split(":")[0]
        cover = (
            f"{form}. Appeal of claim {d.claim_id} for {p.first} {p.last}, DOB {mdy(p.dob)}, "
            f"date of service {mdy(d.service_date)}, denied {group}-{carc}. Supporting letter of "
            "medical necessity attached."
        )
        t = self._trajectory(w, d, lmn, cover)
        return Draft(
            key=d.claim_id,
            instruction=(
                f"{denial_intro(w, d)} should be appealed, the way this payer takes appeals. Fax "
                "it "
                "from the patient's chart with a cover note that names the payer's appeal form "
                "and identifies the claim, and the current signed letter of medical necessity "
                "attached. Then triage the claim as an appeal with a note that records the fax "
                "transmission id."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=self._checks(w, d, lmn),
            expected_outcome="one fax to the appeals number naming the claim, letter attached; "
            "claim triaged as appeal with the transmission id",
            rationale=f"{group}-{carc} is contested with documentation; the payer takes "
            "appeals only by fax, to its appeals department, with its own form named.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(w, d, t, cover),
            given=[*denial_given_values(w, d), "appeal"],
            answer=answer(w, d, "appeal", channel="fax", attach=[lmn]),
        )

    def _trajectory(self, w: WorldView, d: Denial, lmn: Document, cover: str) -> Traj:
        """From the claim's documents to the fax, then the triage naming its id."""
        plan = w.plans[d.plan_id]
        group, carc = denial_reason(d)
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=appeal")
        t.open_fax()
        t.send_fax(f"{plan.payer} Appeals", plan.appeals_fax, cover, [w.doc_label(lmn)])
        note = (
            f"Appeal for {group}-{carc} faxed to {plan.payer} at {plan.appeals_fax} with the "
            "letter of "
            "medical necessity. Fax transmission ${fx}."
        )
        t.triage(d.claim_id, "appeal", note)
        return t

    def _checks(self, w: WorldView, d: Denial, lmn: Document) -> list[dict[str, object]]:
        """The fax (to the payer, from the chart, naming the claim, letter attached), then the
        triage carrying the id the fax portal issued."""
        plan = w.plans[d.plan_id]
        sent = f"fax.transmissions[?fax_number=={q(fax_digits(plan.appeals_fax))}]"
        return [
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
                f"contains({sent} | [0].cover_note || '', {q(plan.appeal_form.split(':')[0])})",
                True,
                1,
                "The cover note names the payer's appeal form",
                "Data Accuracy",
            ),
            jcheck(
                f"contains({sent} | [0].all_document_ids || `[]`, {q(lmn.id)})",
                True,
                1,
                "The letter of medical necessity was attached",
                "Data Accuracy",
            ),
            *appeal_guards(w, d, "fax"),
            triaged_as_appeal_check(d.claim_id),
            jcheck(
                f"contains({triage_notes_query(d.claim_id)}, {sent} | [0].id || {q(NO_VALUE)})",
                True,
                2,
                "The triage note carries the transmission id the fax portal issued",
                "Documentation",
            ),
        ]

    def _mutations(self, w: WorldView, d: Denial, t: Traj, cover: str) -> list[Mutation]:
        """Another payer's fax number, the payer's utilization-management fax, a cover note
        the payer cannot match to the claim, and one without the payer's form."""
        plan = w.plans[d.plan_id]
        form = plan.appeal_form.split(":")[0]
        return [
            *drop_mutations(t),
            misdirected_fax(t, w.other_plan_fax(plan.appeals_fax), "fax another payer's number"),
            Mutation(
                "um-fax",
                "wrong-value",
                "fax the utilization-management (prior-auth) number, not appeals",
                replace_value(t, "fax-number", plan.fax),
            ),
            Mutation(
                "no-form",
                "wrong-value",
                "a cover note that does not name the payer's appeal form",
                replace_value(t, "fax-cover", cover.replace(f"{form}. ", "")),
            ),
            Mutation(
                "no-claim",
                "wrong-value",
                "a cover note that does not name the claim",
                replace_value(t, "fax-cover", cover.replace(d.claim_id, "the claim")),
            ),
        ]

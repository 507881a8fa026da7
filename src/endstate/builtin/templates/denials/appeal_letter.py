"""Easy: build the appeal letter in the EHR for exactly the denied lines, then triage."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    NO_VALUE,
    Draft,
    Mutation,
    Traj,
    WorldView,
    decoys_unsent,
    drop_mutations,
    jcheck,
    q,
    replace_value,
)
from endstate.builtin.templates.denials.facts import (
    CONTACT_NAME,
    FAMILY,
    NECESSITY,
    answer,
    appeal_window_open,
    denial_given_values,
    denial_intro,
    denial_reason,
    triage_notes_query,
    triaged_as_appeal_check,
)
from endstate.envs.systems.ehr import controls as ehr
from endstate.envs.world import Denial, DenialLine


class AppealLetter(TaskTemplate):
    """Easy: build the appeal letter in the EHR for exactly the denied lines, then triage."""

    id = "dn.easy.appeal-letter"
    family = FAMILY
    tier = "easy"
    scenario_label = "denial_appeal"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if appeal_window_open(w, d) and denial_reason(d)[1] in NECESSITY
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = denial_reason(d)
        denied = [x for x in d.lines if x.carc != "45"]
        paid = [x for x in d.lines if x.carc == "45"]
        note = (
            f"Denied {group}-{carc}. Appeal letter ${{doc}} saved to the chart for the denied "
            "lines; appeal to follow."
        )
        t = self._trajectory(w, d, denied, note)
        return Draft(
            key=d.claim_id,
            instruction=(
                f"{denial_intro(w, d)} is to be appealed. Prepare the appeal letter in the "
                "patient's "
                "chart on the ground the payer denied it, appealing only the lines the payer "
                f"denied, addressed to the payer's appeals department and signed by "
                f"{CONTACT_NAME}. Then triage the claim as an appeal with a note that gives the "
                "letter's document id."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=[*self._checks(d, denied, paid), *decoys_unsent(w.decoy_lmns(d.claim_id), 2)],
            expected_outcome="one final appeal letter (medical necessity, denied lines only); "
            "claim triaged as appeal citing it",
            rationale=f"{group}-{carc} is a medical-necessity denial; the letter argues it for "
            "the denied lines.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(t, note, paid),
            given=[*denial_given_values(w, d), "appeal", CONTACT_NAME],
            answer=answer(w, d, "appeal"),
        )

    def _trajectory(self, w: WorldView, d: Denial, denied: list[DenialLine], note: str) -> Traj:
        """Read the lines, fill the letter on the claim's appeal tab, then triage citing it."""
        group, carc = denial_reason(d)
        plan = w.plans[d.plan_id]
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=lines")
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=appeal")
        t.fill(ehr.ADDRESSED_TO, f"{plan.payer} Appeals Department")
        t.select(ehr.APPEAL_BASIS, "Service was medically necessary", mark="basis")
        for x in denied:
            t.add(
                {
                    "type": "check",
                    "target": {"label": ehr.APPEAL_LINE.format(line=x.line, cpt=x.cpt)},
                }
            )
        t.fill(
            ehr.ARGUMENT,
            f"The services on the appealed lines were medically necessary for this patient, as "
            f"documented in the chart; the {group}-{carc} denial should be reversed.",
        )
        t.fill(ehr.SIGNED_BY, CONTACT_NAME)
        t.click(ehr.SAVE_LETTER, writes="save the appeal letter to the chart")
        t.capture("doc", pattern=r"DOC-\d{5}")
        t.triage(d.claim_id, "appeal", note)
        return t

    def _checks(
        self, d: Denial, denied: list[DenialLine], paid: list[DenialLine]
    ) -> list[dict[str, object]]:
        """One final letter on the right ground for exactly the denied lines, cited in triage."""
        made = f"ehr.documents_created[?related_id=={q(d.claim_id)} && status=='final']"
        text = f"{made} | [0].text || ''"
        lines_ok = " && ".join(
            [f"contains({text}, {q(f'Line {x.line}: CPT {x.cpt}')})" for x in denied]
            + [f"!contains({text}, {q(f'Line {x.line}: CPT {x.cpt}')})" for x in paid]
        )
        return [
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
            triaged_as_appeal_check(d.claim_id),
            jcheck(
                f"contains({triage_notes_query(d.claim_id)}, {made} | [0].id || {q(NO_VALUE)})",
                True,
                1,
                "The triage note gives the letter's document id",
                "Documentation",
            ),
        ]

    def _mutations(self, t: Traj, note: str, paid: list[DenialLine]) -> list[Mutation]:
        """A paid line ticked as well is a look-alike only when the claim has one."""
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
            line = {
                "type": "check",
                "target": {"label": ehr.APPEAL_LINE.format(line=paid[0].line, cpt=paid[0].cpt)},
            }
            mutations.append(
                Mutation(
                    "paid-line",
                    "look-alike",
                    f"appeal paid line {paid[0].line} as well",
                    [{"op": "insert", "at": t.marks["basis"] + 1, "steps": [line]}],
                )
            )
        return mutations

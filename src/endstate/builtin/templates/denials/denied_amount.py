"""Hard: a calculation from the line items — the billed total of the denied lines."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    DISPOSITION_LABELS,
    Draft,
    Mutation,
    Traj,
    WorldView,
    decoys_unsent,
    drop_mutations,
    jcheck,
    money,
    q,
    replace_value,
)
from endstate.builtin.templates.denials.facts import (
    FAMILY,
    answer,
    denial_given_values,
    denial_intro_inline,
    denial_reason,
    disposition_query,
    expected_disposition,
    only_claim_triaged_check,
    opposite_disposition,
    remittance_decides,
    triage_notes_query,
    wrong_disposition_mutation,
)


class DeniedAmount(TaskTemplate):
    """Hard: a calculation from the line items — the billed total of the denied lines."""

    id = "dn.hard.denied-amount"
    family = FAMILY
    tier = "hard"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        """Claims with a paid line beside the denied ones: the sum is of some lines, not the
        claim's total (a reason that judges the whole claim denies every line)."""
        return [
            d.claim_id
            for d in w.world.denials
            if remittance_decides(d) and any(x.carc == "45" for x in d.lines)
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = denial_reason(d)
        expected = expected_disposition(w, d)
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
            f"contains({triage_notes_query(d.claim_id)}, {q(form)})"
            for form in sorted({f"{denied:.2f}", money(denied)})
        )
        checks = [
            jcheck(disposition_query(d.claim_id), expected, 2, "Disposition", "Clinical Reasoning"),
            jcheck(
                amount, True, 2, "The note states the denied lines' billed total", "Data Accuracy"
            ),
            only_claim_triaged_check(d.claim_id),
            *decoys_unsent(w.decoy_lmns(d.claim_id)),
        ]
        return Draft(
            key=d.claim_id,
            instruction=(
                f"Triage {denial_intro_inline(w, d)}. Decide the disposition "
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
                wrong_disposition_mutation(t, opposite_disposition(expected)),
            ],
            given=denial_given_values(w, d),
            answer=answer(w, d, expected),
        )

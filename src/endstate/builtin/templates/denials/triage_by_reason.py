"""Easy: read the adjustment reason, pick the disposition it calls for, note why."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    DISPOSITION_LABELS,
    Draft,
    Traj,
    WorldView,
    decoys_unsent,
    drop_mutations,
    jcheck,
)
from endstate.builtin.templates.denials.facts import (
    FAMILY,
    action_deadline,
    action_in_time,
    answer,
    appeal_window_open,
    cites_reason_check,
    denial_given_values,
    denial_intro,
    denial_reason,
    disposition_query,
    expected_disposition,
    look_alike_claim_mutation,
    only_claim_triaged_check,
    opposite_disposition,
    remittance_decides,
    wrong_disposition_mutation,
)
from endstate.envs.world import mdy


class TriageByReason(TaskTemplate):
    """Easy: read the adjustment reason, pick the disposition it calls for, note why."""

    id = "dn.easy.triage-by-reason"
    family = FAMILY
    tier = "easy"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if remittance_decides(d) and action_in_time(w, d) and appeal_window_open(w, d)
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = denial_reason(d)
        expected = expected_disposition(w, d)
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=remittance")
        note = f"Denied {group}-{carc}. {DISPOSITION_LABELS[expected]} is the next step"
        found = action_deadline(d)
        note += f"; {found[0]} {mdy(found[1])}." if found else "."
        t.triage(d.claim_id, expected, note)
        look = w.lookalike_denial(d, rng)
        checks = [
            jcheck(disposition_query(d.claim_id), expected, 3, "Disposition", "Clinical Reasoning"),
            only_claim_triaged_check(d.claim_id),
            cites_reason_check(d.claim_id, group, carc),
            *decoys_unsent(w.decoy_lmns(d.claim_id)),
        ]
        return Draft(
            key=d.claim_id,
            instruction=(
                f"{denial_intro(w, d)} needs to be worked. Work out the right next "
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
                wrong_disposition_mutation(t, opposite_disposition(expected)),
                look_alike_claim_mutation(t, d, look),
            ],
            given=denial_given_values(w, d),
            answer=answer(w, d, expected),
        )

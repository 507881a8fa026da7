"""Hard: the payer denied an exact duplicate — nothing to contest; close it and say why."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    Draft,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
)
from endstate.builtin.templates.denials.facts import (
    FAMILY,
    answer,
    appeal_anyway_mutation,
    appeal_window_open,
    cites_reason_check,
    denial_given_values,
    denial_intro_inline,
    denial_reason,
    disposition_query,
    look_alike_claim_mutation,
    no_appeal_query,
    only_claim_triaged_check,
)


class DuplicateClaim(TaskTemplate):
    """Hard: the payer denied an exact duplicate — nothing to contest; close it and say why."""

    id = "dn.hard.duplicate-claim"
    family = FAMILY
    tier = "hard"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if appeal_window_open(w, d) and denial_reason(d)[1] == "18"
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = denial_reason(d)
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=lines")
        note = (
            f"Denied {group}-{carc}: exact duplicate of a claim already submitted for this "
            "service. Nothing to contest, so no appeal or corrected claim; writing off the "
            "duplicate charge."
        )
        t.triage(d.claim_id, "write-off", note)
        nothing = no_appeal_query(d)
        checks: list[dict[str, object]] = [
            jcheck(
                disposition_query(d.claim_id), "write-off", 3, "Disposition", "Clinical Reasoning"
            ),
            jcheck(nothing, True, 2, "No appeal was filed for a duplicate claim", "Safety"),
            cites_reason_check(d.claim_id, group, carc),
            only_claim_triaged_check(d.claim_id),
        ]
        look = w.lookalike_denial(d, rng)
        return Draft(
            key=d.claim_id,
            instruction=(
                f"Work {denial_intro_inline(w, d)}: if the denial can properly "
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
                appeal_anyway_mutation(t),
                look_alike_claim_mutation(t, d, look),
            ],
            given=denial_given_values(w, d),
            answer=answer(w, d, "write-off"),
        )

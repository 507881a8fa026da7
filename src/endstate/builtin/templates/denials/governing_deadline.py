"""Hard: one of a claim's two deadlines has passed — the one that governs the action decides.

A medical-necessity denial is appealed, so a passed appeal deadline leaves a write-off. A
modifier, diagnosis or missing-information denial is fixed with a corrected claim, which runs
on the plan's timely-filing limit from the date of service, not on the appeal deadline: it is
still worked while that limit is open. The denial playbook in the EHR states both rules.
"""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    DISPOSITION_LABELS,
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    replace_value,
)
from endstate.builtin.templates.denials.facts import (
    FAMILY,
    action_deadline,
    action_in_time,
    answer,
    appeal_window_open,
    denial_given_values,
    denial_intro_inline,
    denial_reason,
    disposition_query,
    expected_disposition,
    no_appeal_query,
    only_claim_triaged_check,
    remittance_decides,
    triage_notes_query,
    wrong_disposition_mutation,
)
from endstate.envs.world import Denial, mdy
from endstate.rules.denials import action_for


def _other_deadline(d: Denial, governing: str) -> str:
    """The deadline that does not govern the action (a note quoting it is wrong)."""
    return d.timely_filing_deadline if governing == d.appeal_deadline else d.appeal_deadline


class GoverningDeadline(TaskTemplate):
    """Hard: one of a claim's deadlines has passed — the one that governs the action decides."""

    id = "dn.hard.governing-deadline"
    family = FAMILY
    tier = "hard"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            d.claim_id
            for d in w.world.denials
            if remittance_decides(d)
            and action_deadline(d) is not None
            and not (appeal_window_open(w, d) and action_in_time(w, d))
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = denial_reason(d)
        found = action_deadline(d)
        assert found is not None
        name, when = found
        expected = expected_disposition(w, d)
        action = action_for(group, carc).disposition or expected
        lapsed = expected != action
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}")
        state = "has passed" if lapsed else "is still open"
        note = (
            f"Denied {group}-{carc}: {DISPOSITION_LABELS[action].lower()} is the action for "
            f"this reason, governed by the {name}, {mdy(when)}, which {state}. "
            f"{DISPOSITION_LABELS[expected]}."
        )
        t.triage(d.claim_id, expected, note)
        checks = [
            jcheck(disposition_query(d.claim_id), expected, 3, "Disposition", "Clinical Reasoning"),
            jcheck(no_appeal_query(d), True, 2, "Nothing was appealed", "Safety"),
            jcheck(
                f"contains({triage_notes_query(d.claim_id)}, '{mdy(when)}')",
                True,
                1,
                f"The triage note states the {name} that governs the action",
                "Data Accuracy",
            ),
            only_claim_triaged_check(d.claim_id),
        ]
        other = mdy(_other_deadline(d, when))
        wrong_note = (
            note.replace(mdy(when), other)
            if other != mdy(when)
            else note.replace(mdy(when), "earlier")
        )
        wrong = action if lapsed else "write-off"
        why = (
            "take the action after its deadline"
            if lapsed
            else "write it off because the appeal deadline passed"
        )
        return Draft(
            key=d.claim_id,
            instruction=(
                f"Work {denial_intro_inline(w, d)}; one of its deadlines has passed. Follow the "
                "office's denial playbook: set the disposition this claim now calls for, and "
                "write a triage note that states the deadline (MM/DD/YYYY) that governs the "
                "action and whether it is still open."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=checks,
            expected_outcome=f"{expected}; note states the {name} {mdy(when)}",
            rationale=f"{group}-{carc} calls for {action}, governed by the {name} "
            f"{mdy(when)}; today is {mdy(w.today)}.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                wrong_disposition_mutation(t, wrong, why),
                Mutation(
                    "wrong-deadline",
                    "wrong-value",
                    "a note that quotes the deadline that does not govern the action",
                    replace_value(t, "triage-note", wrong_note),
                ),
            ],
            given=denial_given_values(w, d),
            answer=answer(w, d, expected),
        )

"""Hard: the appeal deadline has passed — do not appeal; write off and say why."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    q,
    replace_value,
    rubric,
)
from endstate.builtin.templates.denials.facts import (
    FAMILY,
    _appeal_anyway,
    _dispo,
    _given,
    _intro_inline,
    _only,
    _open,
    _reason,
    _triage_note,
    _triage_text,
)
from endstate.envs.world import mdy


class WindowClosed(TaskTemplate):
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

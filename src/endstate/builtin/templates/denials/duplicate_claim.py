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
    _appeal_anyway,
    _cites_check,
    _dispo,
    _given,
    _intro_inline,
    _look_alike,
    _no_appeal,
    _only,
    _open,
    _reason,
    answer,
)


class DuplicateClaim(TaskTemplate):
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
            answer=answer(w, d, "write-off"),
        )

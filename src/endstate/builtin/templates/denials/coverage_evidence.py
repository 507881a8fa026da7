"""Hard: a coordination-of-benefits or terminated-coverage denial; the remittance, the"""

from __future__ import annotations

import random

from endstate.builtin.templates.base import Template
from endstate.builtin.templates.common import (
    DISPOSITION_LABELS,
    Draft,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    q,
    rubric,
)
from endstate.builtin.templates.denials.facts import (
    FAMILY,
    _cites_check,
    _dispo,
    _given,
    _in_force,
    _intro_inline,
    _look_alike,
    _no_appeal,
    _only,
    _open,
    _reason,
    _triage_note,
    _triage_text,
    _wrong_disposition,
)
from endstate.envs.world import mdy


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

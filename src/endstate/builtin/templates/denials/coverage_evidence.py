"""Hard: a coordination-of-benefits or terminated-coverage denial; the remittance, the"""

from __future__ import annotations

import random
from dataclasses import dataclass

from endstate.builtin.templates.base import TaskTemplate
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
from endstate.envs.world import Denial, mdy


@dataclass(frozen=True)
class _Decision:
    """What the coverage evidence decides, and how the note, checks and rubric put it."""

    expected: str  # the disposition
    wrong: str  # the one the denial reason alone would suggest
    note: str
    basis: str  # the rationale's evidence
    ask: str  # the rubric's question about the evidence
    other_plan: str | None  # the coverage in force on the date of service, if any


def _decide(w: WorldView, d: Denial) -> _Decision:
    """Another coverage in force means bill it; else the reason (27 or 22) decides."""
    group, carc = _reason(d)
    other = _in_force(w, d)
    dos = mdy(d.service_date)
    if other:
        plan = w.plan_of(other[0])
        return _Decision(
            "bill-secondary",
            "bill-patient" if carc == "27" else "reconsideration",
            f"Denied {group}-{carc}. The patient's {plan.name} coverage was in force on "
            f"the date of service {dos}; billing that payer.",
            f"{plan.name} was in force on {dos}",
            f"names the {plan.name} coverage as in force on the date of service and",
            plan.name,
        )
    if carc == "27":
        return _Decision(
            "bill-patient",
            "bill-secondary",
            f"Denied {group}-{carc}. No other coverage on the account was in force on the "
            f"date of service {dos}; the balance is the patient's responsibility.",
            f"no other coverage was in force on {dos}",
            "says no other coverage was in force on the date of service and",
            None,
        )
    return _Decision(
        "reconsideration",
        "bill-secondary",
        f"Denied {group}-{carc}, but no other coverage on the account was in force on "
        f"the date of service {dos}. Asking the payer to reconsider as primary.",
        f"no other coverage was in force on {dos}, so the payer is primary",
        "says no other coverage was in force on the date of service and",
        None,
    )


class CoverageEvidence(TaskTemplate):
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
        decision = _decide(w, d)
        t = self._trajectory(d, decision)
        checks = self._checks(d, decision)
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
            expected_outcome=f"disposition {decision.expected}",
            rationale=f"{group}-{carc} on a claim for {mdy(d.service_date)}: {decision.basis}.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                _wrong_disposition(
                    t, decision.wrong, "decide from the denial reason without the coverage evidence"
                ),
                _look_alike(t, d, look),
            ],
            given=_given(w, d),
        )

    def _trajectory(self, d: Denial, decision: _Decision) -> Traj:
        """The remittance, then the patient's coverages as of the claim, then the triage."""
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=remittance")
        t.goto(f"${{ehr}}/patients/{d.mrn}?claim={d.claim_id}")
        t.triage(d.claim_id, decision.expected, decision.note)
        return t

    def _checks(self, d: Denial, decision: _Decision) -> list[dict[str, object]]:
        """The decision, its cited reason and evidence; nothing appealed, no other claim."""
        group, carc = _reason(d)
        names: list[dict[str, object]] = []
        if decision.other_plan is not None:
            names.append(
                jcheck(
                    f"contains({_triage_text(d.claim_id)}, {q(decision.other_plan)})",
                    True,
                    1,
                    "The note names the other coverage the claim goes to",
                    "Data Accuracy",
                )
            )
        return [
            jcheck(_dispo(d.claim_id), decision.expected, 3, "Disposition", "Clinical Reasoning"),
            _cites_check(d.claim_id, group, carc),
            *names,
            jcheck(_no_appeal(d), True, 1, "No appeal was filed for the claim", "Safety"),
            _only(d.claim_id),
            rubric(
                _triage_note(d.claim_id),
                "triage note",
                "The note gives the evidence for the disposition",
                f"Does the note cite the denial ({group}-{carc}), {decision.ask} give a next step "
                f"consistent with '{DISPOSITION_LABELS[decision.expected]}'?",
            ),
        ]

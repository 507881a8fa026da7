"""Hard: a coordination-of-benefits or terminated-coverage denial; the remittance, the"""

from __future__ import annotations

import random
from dataclasses import dataclass

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    Draft,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    q,
)
from endstate.builtin.templates.denials.facts import (
    FAMILY,
    answer,
    appeal_window_open,
    cites_reason_check,
    denial_given_values,
    denial_intro_inline,
    denial_reason,
    disposition_query,
    look_alike_claim_mutation,
    no_appeal_query,
    only_claim_triaged_check,
    triage_notes_query,
    wrong_disposition_mutation,
)
from endstate.envs.world import Denial, mdy


@dataclass(frozen=True)
class _Decision:
    """What the coverage evidence decides, and how the note and checks put it."""

    expected: str  # the disposition
    wrong: str  # the one the denial reason alone would suggest
    note: str
    basis: str  # the rationale's evidence
    other_plan: str | None  # the coverage in force on the date of service, if any


def _decide(w: WorldView, d: Denial) -> _Decision:
    """What the coverages on the date of service decide, by coordination of benefits
    (rules.cob): for CO-22, bill the plan that paid first if it is not this one, else ask this
    payer to reconsider as primary; for PR-27, bill a plan in force that day, else the
    balance is the patient's."""
    group, carc = denial_reason(d)
    order = w.world.benefit_order(d.mrn, d.service_date)
    first = order[0] if order else None
    dos = mdy(d.service_date)
    other = first if first is not None and first.id != d.coverage_id else None
    if other is not None:
        plan = w.plan_of(other.id)
        paid_first = "paid first" if carc == "22" else "was in force"
        return _Decision(
            "bill-secondary",
            "bill-patient" if carc == "27" else "reconsideration",
            f"Denied {group}-{carc}. The patient's {plan.name} coverage {paid_first} on "
            f"the date of service {dos}; billing that payer.",
            f"{plan.name} {paid_first} on {dos}",
            plan.name,
        )
    if carc == "27":
        return _Decision(
            "bill-patient",
            "bill-secondary",
            f"Denied {group}-{carc}. No other coverage on the account was in force on the "
            f"date of service {dos}; the balance is the patient's responsibility.",
            f"no other coverage was in force on {dos}",
            None,
        )
    second = next((c for c in order if c.id != d.coverage_id), None)
    beside = f" ({w.plan_of(second.id).name}, in force that day, pays after it)" if second else ""
    return _Decision(
        "reconsideration",
        "bill-secondary",
        f"Denied {group}-{carc}, but this plan paid first on the date of service {dos}"
        f"{beside}. Asking the payer to reconsider as primary.",
        f"this plan paid first on {dos}{beside}",
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
            if appeal_window_open(w, d) and denial_reason(d)[1] in ("22", "27")
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        group, carc = denial_reason(d)
        decision = _decide(w, d)
        t = self._trajectory(d, decision)
        checks = self._checks(d, decision)
        look = w.lookalike_denial(d, rng)
        return Draft(
            key=d.claim_id,
            instruction=(
                f"Decide the next step for {denial_intro_inline(w, d)}. The "
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
                wrong_disposition_mutation(
                    t, decision.wrong, "decide from the denial reason without the coverage evidence"
                ),
                look_alike_claim_mutation(t, d, look),
            ],
            given=denial_given_values(w, d),
            answer=answer(w, d, decision.expected),
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
        group, carc = denial_reason(d)
        names: list[dict[str, object]] = []
        if decision.other_plan is not None:
            names.append(
                jcheck(
                    f"contains({triage_notes_query(d.claim_id)}, {q(decision.other_plan)})",
                    True,
                    1,
                    "The note names the other coverage the claim goes to",
                    "Data Accuracy",
                )
            )
        return [
            jcheck(
                disposition_query(d.claim_id),
                decision.expected,
                3,
                "Disposition",
                "Clinical Reasoning",
            ),
            cites_reason_check(d.claim_id, group, carc),
            *names,
            jcheck(no_appeal_query(d), True, 1, "No appeal was filed for the claim", "Safety"),
            only_claim_triaged_check(d.claim_id),
        ]

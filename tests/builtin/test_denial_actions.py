"""The denial playbook: one map from adjustment reason to action, and every template on it."""

from __future__ import annotations

import re

import pytest

from endstate.builtin.generator import generate
from endstate.envs.world import catalog, generate_world
from endstate.rules.cost_sharing import member_share_billed_to
from endstate.rules.denials import (
    DENIAL_ACTIONS,
    UnknownReason,
    action_for,
    disposition,
)

TODAY = "2026-03-02"
OPEN, PASSED = "2026-06-01", "2026-01-15"


def test_a_corrected_claim_runs_on_timely_filing_not_on_the_appeal_deadline() -> None:
    assert disposition("CO", "4", PASSED, OPEN, TODAY) == "corrected-claim"
    assert disposition("CO", "16", OPEN, PASSED, TODAY) == "write-off"
    assert disposition("CO", "50", PASSED, OPEN, TODAY) == "write-off"
    assert disposition("CO", "50", OPEN, PASSED, TODAY) == "appeal"
    assert disposition("PR", "1", PASSED, PASSED, TODAY) == "bill-patient"


def test_reasons_that_need_more_facts_or_are_unknown_are_refused() -> None:
    with pytest.raises(UnknownReason, match="CO-197 depends on"):
        disposition("CO", "197", OPEN, OPEN, TODAY)
    with pytest.raises(UnknownReason, match="no denial action for CO-999"):
        action_for("CO", "999")


def test_the_map_covers_every_reason_the_world_uses_and_never_bills_the_patient_for_co() -> None:
    covered = {(a.group, a.carc) for a in DENIAL_ACTIONS}
    assert {(c.group, c.code) for c in catalog.CARCS} <= covered
    for action in DENIAL_ACTIONS:
        if action.group == "CO":
            assert "bill-patient" not in action.possible, action.code


_DISPO = re.compile(r"ehr\.denial_dispositions\[\?claim_id=='(CLM\d+)'\] \| \[0\]\.disposition")


@pytest.mark.parametrize("seed", [20260302, 7, 45])
def test_every_denial_template_expects_what_the_map_allows(seed: int) -> None:
    """Audit: each generated denial task's expected disposition is one the playbook gives for
    that claim's reason — and exactly the playbook's when the remittance alone decides."""
    world = generate_world(seed)
    today = world.today.isoformat()
    claims = {d.claim_id: d for d in world.denials}
    audited = 0
    for g in generate(seed, 63):
        if g.data["family"] != "appeals_denials":
            continue
        for check in g.data["checks"]:
            found = _DISPO.fullmatch(str(check.get("query", "")))
            if not found:
                continue
            d = claims[found.group(1)]
            line = next(x for x in d.lines if x.carc != "45")
            action = action_for(line.group, line.carc)
            expected = check["expected_value"]
            assert expected in action.possible, (g.data["id"], action.code, expected)
            if action.disposition is not None:
                playbook = disposition(
                    line.group, line.carc, d.appeal_deadline, d.timely_filing_deadline, today
                )
                if playbook == "bill-patient":  # a Medi-Cal member's share goes to Medi-Cal
                    beside = world.benefit_order(d.mrn, d.service_date)
                    kinds = [world.plan(c.plan_id).kind for c in beside if c.id != d.coverage_id]
                    playbook = member_share_billed_to(kinds)
                assert expected == playbook, (g.data["id"], action.code, expected, playbook)
            audited += 1
    assert audited >= 20

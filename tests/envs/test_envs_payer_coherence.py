"""The world against the payer rules: every generated world obeys them, and each rule catches
a record broken by hand (generation would fail on it, naming the record)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

import pytest

from endstate.envs.world import World, generate_world
from endstate.envs.world.coherence import problems
from endstate.envs.world.model import Adjustment, Coverage, Document
from endstate.rules.windows import windows_for

SEEDS = (20260302, 1, 7, 91731)


def fresh() -> World:
    return generate_world(20260302)


def _named(found: list[str], label: str, words: str) -> bool:
    return any(line.startswith(label) and words in line for line in found)


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_worlds_obey_the_rules(seed: int) -> None:
    w = generate_world(seed)
    assert problems(w) == []
    for plan in w.plans:
        win = windows_for(plan.kind)
        assert (plan.appeal_window_days, plan.timely_filing_days) == (
            win.appeal_days,
            win.timely_filing_days,
        )
    # Claims go to the plan that paid first (CO-22 and PR-27 aside); none leaves a Medi-Cal
    # member a deductible; deadlines are denial + window.
    for claim in w.denials:
        reasons = {(x.group, x.carc) for x in claim.lines}
        if not reasons & {("CO", "22"), ("PR", "27")}:
            first = w.primary_on(claim.mrn, claim.service_date)
            assert first is not None and first.id == claim.coverage_id, claim.claim_id
    # Every DME order sits on the plan that paid first the day it was placed.
    for order in w.dme_orders:
        first = w.primary_on(order.mrn, order.ordered)
        assert first is not None and first.id == order.coverage_id, order.id


def test_some_plans_end_before_appointments_and_some_start_before_them() -> None:
    ended = started = 0
    for seed in SEEDS:
        w = generate_world(seed)
        for ref in w.referrals:
            cov = w.coverage(ref.coverage_id)
            if cov.status == "active" and not cov.in_force(ref.appointment):
                ended += 1  # active today, ended by the appointment
            if cov.status == "future" and cov.in_force(ref.appointment):
                started += 1  # not yet in force today, in force on the appointment
    assert ended >= 1 and started >= 1


def test_catches_a_plan_whose_windows_are_not_its_kinds() -> None:
    w = fresh()
    w.plans[0] = replace(w.plans[0], appeal_window_days=180)
    assert _named(problems(w), w.plans[0].id, "appeal 180")


def test_catches_a_claim_billed_to_the_secondary_while_the_primary_paid_first() -> None:
    w = fresh()
    claim = next(c for c in w.denials if not {x.carc for x in c.lines} & {"22", "27"})
    other = next(c for c in w.coverages if c.mrn != claim.mrn and c.status == "active")
    second = replace(other, id="COV-9999", mrn=claim.mrn, rank=2, effective="2000-01-01",
                     termination=None, relationship="self", basis="employment",
                     employer_size=500)  # fmt: skip
    if w.plan(second.plan_id).payer == w.plan(claim.plan_id).payer:
        second = replace(second, plan_id=next(
            p.id for p in w.plans if p.payer != w.plan(claim.plan_id).payer and p.kind == "commercial"
        ))  # fmt: skip
    w.coverages.append(second)
    # The new plan pays first (Medi-Cal pays last; the member's own plan before a spouse's):
    # whichever of the two the claim went to, one of them was not the first payer.
    first = w.primary_on(claim.mrn, claim.service_date)
    assert first is not None
    if first.id == claim.coverage_id:
        i = w.denials.index(claim)
        w.denials[i] = replace(claim, coverage_id=second.id, plan_id=second.plan_id)
    assert _named(problems(w), claim.claim_id, "paid first on its date of service")


def test_catches_a_deductible_on_a_medi_cal_claim() -> None:
    w = fresh()
    medi_cal = next(p for p in w.plans if p.kind == "medicaid_mco")
    claim = next(c for c in w.denials if c.plan_id == medi_cal.id)
    line = claim.lines[0]
    owed = replace(line, adjustments=[*line.adjustments, Adjustment("PR", "1", 10.0)])
    w.denials[w.denials.index(claim)] = replace(claim, lines=[owed, *claim.lines[1:]])
    assert _named(problems(w), claim.claim_id, "forbids member cost sharing")


def test_catches_a_medicare_only_remark_on_another_payers_remittance() -> None:
    w = fresh()
    claim = next(c for c in w.denials if w.plan(c.plan_id).kind == "commercial")
    line = replace(claim.lines[0], rarcs=["N115"])
    w.denials[w.denials.index(claim)] = replace(claim, lines=[line, *claim.lines[1:]])
    assert _named(problems(w), claim.claim_id, "remark N115 is not one a commercial sends")


def test_catches_an_appeal_deadline_that_is_not_denial_plus_the_window() -> None:
    w = fresh()
    claim = w.denials[0]
    later = (date.fromisoformat(claim.appeal_deadline) + timedelta(days=30)).isoformat()
    w.denials[0] = replace(claim, appeal_deadline=later)
    assert _named(problems(w), claim.claim_id, "not denial + the window")


def test_catches_a_dme_order_on_a_plan_that_has_ended() -> None:
    w = fresh()
    order = w.dme_orders[0]
    cov = w.coverage(order.coverage_id)
    ended = replace(
        cov, termination=(date.fromisoformat(order.ordered) - timedelta(days=3)).isoformat()
    )
    w.coverages[w.coverages.index(cov)] = ended
    assert _named(problems(w), order.id, "paid first on")


def test_catches_a_supplier_not_accredited_for_the_item() -> None:
    w = fresh()
    pump = next(o for o in w.dme_orders if o.hcpcs == "E0784")
    w.dme_orders[w.dme_orders.index(pump)] = replace(
        pump, supplier="Crestview Home Respiratory", supplier_fax="(510) 555-0177"
    )
    assert _named(problems(w), pump.id, "is not accredited for infusion pumps")


def test_catches_a_cpap_result_that_a_reading_of_the_rule_would_qualify() -> None:
    w = fresh()
    cpap = next(o for o in w.dme_orders if o.hcpcs == "E0601")
    w.dme_orders[w.dme_orders.index(cpap)] = replace(cpap, result=9.0)  # 5-14 with symptoms
    assert _named(problems(w), cpap.id, "falls short, but not clearly")


def test_catches_authorization_required_for_a_plain_film() -> None:
    w = fresh()
    rule = next(r for r in w.payer_rules if r.cpt == "73562")
    w.payer_rules[w.payer_rules.index(rule)] = replace(rule, requires_auth=True)
    assert _named(problems(w), rule.plan_id, "73562, which no payer reviews")


def test_catches_a_plain_film_ordered_after_an_mri_of_the_same_joint() -> None:
    w = fresh()
    ref = next(r for r in w.referrals if any(s.cpt == "73562" for s in r.services))
    mri = Document(
        "DOC-99999", ref.mrn, "imaging", "Prior imaging report", "2026-01-10",
        "Radiology reading room", "final", True, 1,
        "IMAGING REPORT\nExam: MRI of the knee (right)    Exam date: 01/10/2026\n",
        ref.id, "pdf",
    )  # fmt: skip
    w.documents.append(mri)
    assert _named(problems(w), ref.id, "plain film (73562) of the knee after its MRI")


def test_catches_ranks_coordination_of_benefits_would_not_give() -> None:
    w = fresh()
    mrn = next(
        m for m in {c.mrn for c in w.coverages}
        if len(w.benefit_order(m, w.today.isoformat())) == 2
    )  # fmt: skip
    first, second = w.benefit_order(mrn, w.today.isoformat())
    swapped: list[Coverage] = [replace(first, rank=2), replace(second, rank=1)]
    for c in swapped:
        w.coverages[next(i for i, x in enumerate(w.coverages) if x.id == c.id)] = c
    found = problems(w)
    assert _named(found, first.id, "ranked 2, but coordination of benefits puts it 1")


def test_catches_strings_that_do_not_read_as_written_text() -> None:
    w = fresh()
    p = w.patients[0]
    w.patients[0] = replace(p, address=f"{p.address}  ", first="")
    doc = w.documents[0]
    w.documents[0] = replace(doc, text=doc.text + "\nPlan: {plan}\nReviewed by None.")
    found = problems(w)
    assert _named(found, p.mrn, "field address has leading or trailing white space")
    assert _named(found, p.mrn, "field first is empty")
    assert _named(found, doc.id, "field text has an unfilled placeholder {plan}")
    # A report's layout (an indented list, header columns) is not a slip.
    w = fresh()
    w.documents[0] = replace(doc, text="REPORT\nPatient: A    DOB: 01/01/1990\n  - item one")
    assert not _named(problems(w), doc.id, "field text")


def test_a_generated_task_with_a_slip_in_its_text_is_refused() -> None:
    from endstate.builtin.generator import GenerationError, generate
    from endstate.builtin.task_lint import require_clean, task_problems

    made = generate(3, 6)
    assert all(task_problems(g.data) == [] for g in made)
    first = made[0]
    slipped = replace(first, data={**first.data, "instruction": first.data["instruction"] + " "})
    with pytest.raises(GenerationError, match=f"{first.data['id']}: instruction has leading"):
        require_clean([slipped, *made[1:]])


@pytest.mark.parametrize("reason", [("PR", "27"), ("CO", "22"), ("CO", "29")])
def test_catches_a_paid_line_on_a_claim_denied_as_a_whole(reason: tuple[str, str]) -> None:
    """Coverage ended, another payer first, filed late: each judges the claim, and its lines
    share one date of service, so a line paid beside one denied for it is refused."""
    w, claim = next(
        (w, c)
        for w in map(generate_world, SEEDS)
        for c in w.denials
        if len(c.lines) > 1 and (c.lines[0].group, c.lines[0].carc) == reason
    )
    assert all(x.paid == 0 and (x.group, x.carc) == reason for x in claim.lines)
    paid = replace(claim.lines[1], group="CO", carc="45", allowed=10.0, paid=10.0)
    w.denials[w.denials.index(claim)] = replace(
        claim, lines=[claim.lines[0], paid, *claim.lines[2:]]
    )
    assert _named(
        problems(w), claim.claim_id, f"on a claim denied {reason[0]}-{reason[1]} as a whole"
    )


def test_a_world_with_a_paid_line_on_a_claim_denied_as_a_whole_is_not_generated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The generator's own check stops it: drawn the old way (only the first line sure to be
    denied), the built-in seed's claim-level denials with more than one line carry paid ones."""
    from endstate.envs.world import claims

    monkeypatch.setattr(claims.catalog, "CLAIM_LEVEL_CARCS", frozenset())
    with pytest.raises(ValueError, match="as a whole"):
        generate_world(20260302)

"""A Medi-Cal member is never billed a member share, even one left by a plan that pays first.

The claims are found from the world's records read directly (a PR-1 headline, and a Medi-Cal
coverage of the patient in force on the date of service beside the claim's own); the
templates' key, the audit's derivation and the built-in corpus must all send that share to
Medi-Cal as secondary, and a key saying "bill the patient" must be caught.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from endstate.builtin import builtin_corpus_path
from endstate.builtin.audit import audit_corpus, derive_all
from endstate.builtin.retired import fresh_numbers, retired_task_ids
from endstate.builtin.templates.common import WorldView
from endstate.builtin.templates.denials.facts import expected_disposition
from endstate.corpus.loader import load_corpus
from endstate.envs.world import DEFAULT_CLOCK, Coverage, Denial, World, generate_world
from endstate.rules.cost_sharing import may_bill_member_beside, member_share_billed_to

SEED = 20260302


@pytest.fixture(scope="module")
def world() -> World:
    return generate_world(SEED, DEFAULT_CLOCK)


def _live(c: Coverage, day: str) -> bool:
    """In force on `day`, read off the record itself (a voided enrollment never is)."""
    if c.status == "inactive" or c.effective > day:
        return False
    return c.termination is None or c.termination >= day


def shielded_claims(world: World) -> list[Denial]:
    """PR-1 denials of patients who also had Medi-Cal on the date of service."""
    kinds = {p.id: p.kind for p in world.plans}
    found = []
    for d in world.denials:
        head = next(x for x in d.lines if x.carc != "45")
        if (head.group, head.carc) != ("PR", "1"):
            continue
        beside = [
            c
            for c in world.coverages
            if c.mrn == d.mrn and c.id != d.coverage_id and _live(c, d.service_date)
        ]
        if any(kinds[c.plan_id] == "medicaid_mco" for c in beside):
            found.append(d)
    return found


def test_the_rule_sends_a_member_share_to_medi_cal_when_the_patient_has_it() -> None:
    assert member_share_billed_to(["commercial"]) == "bill-patient"
    assert member_share_billed_to([]) == "bill-patient"
    assert member_share_billed_to(["commercial", "medicaid_mco"]) == "bill-secondary"
    assert not may_bill_member_beside(["medicaid_mco"])
    assert may_bill_member_beside(["medicare_advantage"])


def test_the_default_world_holds_such_a_claim_and_both_derivations_agree(world: World) -> None:
    shielded = shielded_claims(world)
    assert shielded, "the default world holds a Medi-Cal member's deductible on another plan"
    view = WorldView(world)
    derived = {o.record: o for o in derive_all(world) if o.family == "appeals_denials"}
    for d in shielded:
        assert expected_disposition(view, d) == "bill-secondary", d.claim_id
        outcome = derived[d.claim_id]
        assert outcome.decision == "bill-secondary", d.claim_id
        assert "rules.cost_sharing" in outcome.facts["disposition"].rule


def test_the_builtin_corpus_never_bills_a_medi_cal_member(world: World) -> None:
    shielded = {d.claim_id for d in shielded_claims(world)}
    seen = 0
    for task in load_corpus(builtin_corpus_path()).tasks:
        key = task.grading.extra["answer_key"]
        stated = key.get("dispositions") or {key.get("record"): key.get("disposition")}
        for claim, disposition in stated.items():
            if claim in shielded:
                seen += 1
                assert disposition == "bill-secondary", (task.id, claim)
    assert seen, "a built-in task works a Medi-Cal member's deductible"


def test_a_key_that_bills_the_medi_cal_member_is_caught(tmp_path: Path) -> None:
    source = builtin_corpus_path() / "appeals_denials" / "dn-20260302-g8-012.json"
    data: dict[str, Any] = json.loads(source.read_text())
    claim = next(c for c, v in data["answer_key"]["dispositions"].items() if v == "bill-secondary")
    data["answer_key"]["dispositions"][claim] = "bill-patient"
    path = tmp_path / "appeals_denials" / "planted.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data))
    report = audit_corpus(tmp_path)
    hits = [f for f in report.findings if f.record == claim]
    assert len(hits) == 1 and hits[0].kind == "disagreement", [f.line() for f in hits]
    assert hits[0].claimed == "bill-patient" and hits[0].derived == "bill-secondary"
    assert "rules.cost_sharing" in hits[0].rule


def test_the_retired_id_is_not_issued_again_and_its_task_comes_back_under_a_new_one() -> None:
    # Generator 7 retired dn-...-g7-012 and made its task again as -029; generator 8 retired
    # every generator-7 id, and the task is back in its place under the new generator.
    assert {"dn-20260302-g7-012", "dn-20260302-g7-029"} <= retired_task_ids()
    ids = {t.id for t in load_corpus(builtin_corpus_path()).tasks}
    assert not {i for i in ids if "-g7-" in i} and "dn-20260302-g8-012" in ids
    # In place where nothing was retired; a retired place takes the next never-retired number.
    assert fresh_numbers("dn-1-g0", 3) == [1, 2, 3]
    assert fresh_numbers("dn-20260302-g8", 28) == list(range(1, 29))
    numbers = fresh_numbers("dn-20260302-g7", 28)  # every place up to 031 was issued and retired
    assert numbers == list(range(32, 60))
    assert not {f"dn-20260302-g7-{n:03d}" for n in numbers} & retired_task_ids()

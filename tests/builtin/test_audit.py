"""The answer audit: outcomes derived from real worlds, and every planted defect caught.

Derivations are checked against the world's records read directly (never against the audit's
own helpers); each defect class is planted in a copy of a real world, or in an end state, and
must be reported naming the field and the rule that decides.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from endstate.builtin.audit import (
    Finding,
    Outcome,
    audit_corpus,
    audit_task,
    audit_world_list,
    audit_worlds,
    compare_key,
    derive_all,
    embodied,
)
from endstate.builtin.generator import generate
from endstate.cli.corpus import corpus_app
from endstate.corpus import native
from endstate.envs.world import (
    DEFAULT_CLOCK,
    Coverage,
    Denial,
    DmeOrder,
    Referral,
    World,
    generate_world,
)
from endstate.rules import dme as dme_rule
from endstate.rules.plans import is_medicaid

SEED = 20260302
SEEDS = (SEED, 2, 7)
runner = CliRunner()


@pytest.fixture(scope="module")
def worlds() -> dict[int, World]:
    return {seed: generate_world(seed, DEFAULT_CLOCK) for seed in SEEDS}


@pytest.fixture(scope="module")
def world(worlds: dict[int, World]) -> World:
    return worlds[SEED]


@pytest.fixture(scope="module")
def generated() -> list[dict[str, Any]]:
    """The task files the templates make for the default world (their keys are claims)."""
    return [g.data for g in generate(SEED, 63)]


def shift(day: str, days: int) -> str:
    return (date.fromisoformat(day[:10]) + timedelta(days=days)).isoformat()


def findings(key: dict[str, Any], world: World) -> list[Finding]:
    return compare_key("t-1", key, world)[0]


def only(found: list[Finding], field: str) -> Finding:
    hits = [f for f in found if f.field == field]
    assert len(hits) == 1, [f.line() for f in found]
    return hits[0]


def outcomes_of(world: World, family: str) -> list[Outcome]:
    return [o for o in derive_all(world) if o.family == family]


def pick(world: World, family: str, decision: str, *, need: str = "") -> Outcome:
    for o in outcomes_of(world, family):
        if o.decision == decision and (not need or o.value(need)):
            return o
    raise AssertionError(f"no {family} record decided {decision}")


def referral(world: World, rid: str) -> Referral:
    return next(r for r in world.referrals if r.id == rid)


def claim(world: World, cid: str) -> Denial:
    return next(d for d in world.denials if d.claim_id == cid)


def order(world: World, oid: str) -> DmeOrder:
    return next(o for o in world.dme_orders if o.id == oid)


def key_of(outcome: Outcome) -> dict[str, Any]:
    """A key stating exactly what the audit derives (the baseline a planted defect breaks)."""
    key: dict[str, Any] = {"family": outcome.family, "record": outcome.record}
    key.update({name: f.value for name, f in outcome.facts.items() if f.decided})
    return key


def with_coverages(world: World, mrn: str, coverages: list[Coverage]) -> World:
    kept = [c for c in world.coverages if c.mrn != mrn]
    return replace(world, coverages=kept + coverages)


# --- derivations on real worlds, checked against the records themselves ---------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_referral_decisions_follow_coverage_auth_and_the_first_paying_plan(
    worlds: dict[int, World], seed: int
) -> None:
    world = worlds[seed]
    for o in outcomes_of(world, "prior_auth"):
        r = referral(world, o.record)
        day = r.appointment[:10]
        covered = [c for c in world.coverages_of(r.mrn) if c.in_force(day)]
        assert (o.decision == "not-in-force") == (not covered), r.id
        if o.decision == "on-file":
            assert r.existing_auth
        if o.decision in ("request", "answer-pended"):
            first = world.primary_on(r.mrn, day)
            assert first is not None and o.value("coverage") == first.id
            assert o.value("plan") == first.plan_id
        if o.decision == "request":
            plan = world.plan(o.value("plan"))
            assert o.value("channel") == (plan.portal or "fax")
            (letter,) = [d for d in world.documents if d.id in o.value("attach")]
            assert (letter.kind, letter.status, letter.signed, letter.related_id) == (
                "lmn", "final", True, r.id,
            )  # fmt: skip
        if o.decision == "answer-pended":
            pended = [p for p in world.prior_requests if p.referral_id == r.id]
            assert any(p.status == "info_requested" for p in pended)
            assert o.value("attach") == [
                p.requested_document for p in pended if p.requested_document
            ]
        if o.decision == "not-required":
            plan_id = world.primary_on(r.mrn, day).plan_id  # type: ignore[union-attr]
            rules = [x for x in world.payer_rules if x.plan_id == plan_id]
            assert not any(
                x.cpt == s.cpt and x.requires_auth_at(s.site) for x in rules for s in r.services
            )
        letters = [d for d in world.documents if d.related_id == r.id and d.kind == "lmn"]
        decoys = {d.id for d in letters if d.status != "final" or not d.signed}
        assert decoys <= set(o.value("never_attach")), r.id


def test_every_referral_decision_occurs_across_the_worlds(worlds: dict[int, World]) -> None:
    seen = {o.decision for w in worlds.values() for o in outcomes_of(w, "prior_auth")}
    assert seen == {"not-in-force", "on-file", "answer-pended", "not-required", "request"}


@pytest.mark.parametrize("seed", SEEDS)
def test_claim_dispositions_follow_the_playbook_and_coverage(
    worlds: dict[int, World], seed: int
) -> None:
    world = worlds[seed]
    today = world.today.isoformat()
    for o in outcomes_of(world, "appeals_denials"):
        d = claim(world, o.record)
        line = next(x for x in d.lines if x.carc != "45")
        code = f"{line.group}-{line.carc}"
        plan = world.plan(d.plan_id)
        if code == "CO-197":
            assert o.decision is None and not o.facts["disposition"].decided
            assert "authorization" in o.facts["disposition"].why
        elif code == "CO-50":
            lapsed = d.appeal_deadline < today
            assert o.decision == ("write-off" if lapsed else "appeal")
            assert o.value("deadline") == d.appeal_deadline
            if not lapsed:
                assert o.value("channel") == (
                    plan.portal if plan.appeal_channel == "portal" else "fax"
                )
        elif code in ("CO-4", "CO-11", "CO-16"):
            lapsed = d.timely_filing_deadline < today
            assert o.decision == ("write-off" if lapsed else "corrected-claim")
            assert o.value("deadline") == d.timely_filing_deadline
        elif code in ("CO-18", "CO-29", "CO-96"):
            assert (o.decision, o.value("deadline")) == ("write-off", None)
        elif code == "PR-1":
            beside = [
                c
                for c in world.coverages_of(d.mrn)
                if c.id != d.coverage_id and c.in_force(d.service_date)
            ]
            medi_cal = any(is_medicaid(world.plan(c.plan_id).kind) for c in beside)
            assert not is_medicaid(plan.kind)
            assert o.decision == ("bill-secondary" if medi_cal else "bill-patient")
        elif code == "PR-27":
            others = [c for c in world.coverages_of(d.mrn) if c.in_force(d.service_date)]
            assert o.decision == ("bill-secondary" if others else "bill-patient")
        elif code == "CO-22":
            first = world.primary_on(d.mrn, d.service_date)
            assert first is not None
            if first.id != d.coverage_id:
                assert o.decision == "bill-secondary"
            else:
                assert o.decision in ("reconsideration", "write-off")


@pytest.mark.parametrize("seed", SEEDS)
def test_dme_packets_carry_the_current_documents_and_never_a_stale_note(
    worlds: dict[int, World], seed: int
) -> None:
    world = worlds[seed]
    for o in outcomes_of(world, "dme"):
        od = order(world, o.record)
        docs = [d for d in world.documents if d.related_id == od.id]
        stale = {
            d.id
            for d in docs
            if d.kind == "face_to_face" and not dme_rule.face_to_face_in_window(d.date, od.ordered)
        }
        assert stale <= set(o.value("never_attach"))
        if o.decision == "send":
            assert o.value("to_fax") == "".join(ch for ch in od.supplier_fax if ch.isdigit())
            sent = [d for d in docs if d.id in o.value("documents")]
            assert sorted(d.kind for d in sent) == sorted(od.required_documents)
            assert all(d.status == "final" and d.signed for d in sent)
            assert not stale & set(o.value("documents"))
        if o.decision == "hold-missing":
            assert set(o.value("documents")) <= set(od.required_documents)
        if o.decision == "hold-criterion":
            plan = world.plan(world.coverage(od.coverage_id).plan_id)
            criterion = dme_rule.criterion_for(od.hcpcs, plan.kind)
            assert criterion is not None and od.result is not None
            assert not criterion.met(od.result)


def test_the_templates_keys_for_the_default_world_agree_with_the_audit(
    generated: list[dict[str, Any]], tmp_path: Path
) -> None:
    """Two derivations written apart — the templates' and the audit's — agree on every task."""
    root = tmp_path / "corpus"
    for data in generated:
        path = root / data["family"] / f"{data['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    report = audit_corpus(root)
    assert report.audited == len(generated) == 63
    assert report.ok, [f.line() for f in report.findings]


def test_fresh_worlds_hold_only_records_the_rules_decide() -> None:
    report = audit_worlds([3, 4])
    made = [generate_world(seed, DEFAULT_CLOCK) for seed in (3, 4)]
    assert report.records == sum(
        len(w.referrals) + len(w.denials) + len(w.dme_orders) for w in made
    )
    assert report.ok, [f.line() for f in report.findings]
    assert report.undecidable_by_design > 0  # CO-197: an authorization on file is not in it
    assert set(report.decisions) == {"prior_auth", "appeals_denials", "dme"}


def test_two_coverages_the_rules_cannot_order_are_reported(world: World) -> None:
    o = pick(world, "prior_auth", "request")
    r = referral(world, o.record)
    day = r.appointment[:10]
    base = world.coverage(o.value("coverage"))
    twins = [
        replace(base, relationship="spouse", effective=shift(day, -30), termination=None),
        replace(base, id="COV-9001", plan_id="NSI-PPO" if base.plan_id != "NSI-PPO" else "RME-EPO",
                relationship="spouse", effective=shift(day, -30), termination=None),
    ]  # fmt: skip
    report = audit_world_list([with_coverages(world, r.mrn, twins)])
    found = [f for f in report.findings if f.record == r.id]
    assert found and found[0].kind == "not-derivable" and "rules.cob" in found[0].rule


# --- (1) coverage periods against the date of service ---------------------------------------


def test_a_coverage_ending_before_the_appointment_contradicts_request(world: World) -> None:
    o = pick(world, "prior_auth", "request")
    r = referral(world, o.record)
    assert findings(key_of(o), world) == []
    ended = [
        replace(c, termination=shift(r.appointment, -1), status="terminated")
        for c in world.coverages_of(r.mrn)
    ]
    planted = with_coverages(world, r.mrn, ended)
    f = only(findings(key_of(o), planted), "decision")
    assert (f.kind, f.claimed, f.derived) == ("disagreement", "request", "not-in-force")
    assert f.rule == "rules.coverage [x12-271-dates]" and f.record == r.id


def test_a_coverage_starting_before_the_appointment_contradicts_not_in_force(
    world: World,
) -> None:
    for o in outcomes_of(world, "prior_auth"):
        r = referral(world, o.record)
        if o.decision == "not-in-force" and len(world.coverages_of(r.mrn)) == 1:
            break
    else:
        raise AssertionError("no single-coverage referral out of force")
    (cov,) = world.coverages_of(r.mrn)
    live = replace(cov, status="active", effective=shift(r.appointment, -20), termination=None)
    planted = with_coverages(world, r.mrn, [live])
    key = {"family": "prior_auth", "record": r.id, "decision": "not-in-force"}
    f = only(findings(key, planted), "decision")
    assert f.kind == "disagreement" and f.claimed == "not-in-force"
    assert f.derived in ("request", "not-required", "on-file", "answer-pended")


# --- (2) decoys in the key, and requests in the end state -------------------------------------


def test_a_never_attach_that_misses_a_decoy_is_reported(world: World) -> None:
    o = pick(world, "prior_auth", "request", need="never_attach")
    decoy = o.value("never_attach")[0]
    key = key_of(o) | {"never_attach": [d for d in o.value("never_attach") if d != decoy]}
    f = only(findings(key, world), "never_attach")
    assert f.kind == "disagreement" and decoy in f.detail and "misses decoy" in f.detail


def test_an_attach_listing_a_decoy_is_reported(world: World) -> None:
    o = pick(world, "prior_auth", "request", need="never_attach")
    key = key_of(o) | {"attach": o.value("never_attach")[:1]}
    f = only(findings(key, world), "attach")
    assert "misses required" in f.detail and "lists decoy" in f.detail


def state(**tables: Any) -> dict[str, Any]:
    """A state document with only what a test puts in it."""
    doc: dict[str, Any] = {
        "ehr": {"denial_dispositions": []},
        "payer_a": {"pa_submissions": [], "pa_responses": [], "appeals": []},
        "payer_b": {"pa_submissions": [], "appeals": []},
        "fax": {"transmissions": []},
    }
    for dotted, rows in tables.items():
        system, table = dotted.split("__")
        doc[system][table] = rows
    return doc


def submission(
    o: Outcome, coverage: str | None = None, docs: list[str] | None = None
) -> dict[str, Any]:
    return {
        "member_mrn": o.mrn,
        "coverage_id": coverage or o.value("coverage"),
        "attachments": [
            {"document_id": d} for d in (docs if docs is not None else o.value("attach"))
        ],
    }


def fax(mrn: str, number: str, docs: list[str]) -> dict[str, Any]:
    return {
        "patient_mrn": mrn,
        "fax_number": number,
        "all_document_ids": docs,
        "document_ids": docs,
    }


def test_a_request_through_another_portal_or_by_fax_when_nothing_may_be_sent(
    world: World,
) -> None:
    o = pick(world, "prior_auth", "not-required")
    key = key_of(o) | {"scope": "determination"}
    assert embodied("t-1", key, {o.record: o}, state()) == []
    other = {"member_mrn": o.mrn, "coverage_id": "COV-X", "attachments": []}
    f = only(
        embodied("t-1", key, {o.record: o}, state(payer_b__pa_submissions=[other])), "requests"
    )
    assert (f.kind, f.claimed, f.derived) == ("end-state", ["payer_b"], [])
    sent = state(fax__transmissions=[fax(o.mrn, "4155550101", [])])
    assert only(embodied("t-1", key, {o.record: o}, sent), "requests").claimed == ["fax"]


def test_a_request_on_the_wrong_channel_or_without_its_letter_is_reported(world: World) -> None:
    o = next(
        x for x in outcomes_of(world, "prior_auth")
        if x.decision == "request" and x.value("channel") in ("payer_a", "payer_b")
    )  # fmt: skip
    right = o.value("channel")
    wrong = "payer_b" if right == "payer_a" else "payer_a"
    outcomes = {o.record: o}
    assert (
        embodied("t-1", key_of(o), outcomes, state(**{f"{right}__pa_submissions": [submission(o)]}))
        == []
    )
    f = only(
        embodied(
            "t-1", key_of(o), outcomes, state(**{f"{wrong}__pa_submissions": [submission(o)]})
        ),
        "channel",
    )
    assert (f.claimed, f.derived) == (wrong, right)
    bare = state(**{f"{right}__pa_submissions": [submission(o, docs=[])]})
    assert only(embodied("t-1", key_of(o), outcomes, bare), "attach").detail.startswith(
        "the request lacks"
    )
    two = state(
        **{f"{right}__pa_submissions": [submission(o)], "fax__transmissions": [fax(o.mrn, "1", [])]}
    )
    assert only(embodied("t-1", key_of(o), outcomes, two), "requests").claimed == [right, "fax"]


def test_a_decoy_sent_by_any_channel_is_reported(world: World) -> None:
    o = pick(world, "prior_auth", "request", need="never_attach")
    decoy = o.value("never_attach")[0]
    channel = o.value("channel")
    sent = (
        state(fax__transmissions=[fax(o.mrn, o.addresses["um_fax"], [*o.value("attach"), decoy])])
        if channel == "fax"
        else state(
            **{f"{channel}__pa_submissions": [submission(o, docs=[*o.value("attach"), decoy])]}
        )
    )
    f = only(embodied("t-1", key_of(o), {o.record: o}, sent), "never_attach")
    assert f.claimed == [decoy]


def test_an_answer_to_a_pended_request_is_one_answer_and_no_new_request(world: World) -> None:
    o = pick(world, "prior_auth", "answer-pended")
    answer = {
        "request_number": o.addresses["pended"],
        "attachments": [{"document_id": d} for d in o.value("attach")],
    }
    assert embodied("t-1", key_of(o), {o.record: o}, state(payer_a__pa_responses=[answer])) == []
    both = state(payer_a__pa_responses=[answer], payer_a__pa_submissions=[submission(o)])
    assert only(embodied("t-1", key_of(o), {o.record: o}, both), "requests").claimed == ["payer_a"]
    assert only(embodied("t-1", key_of(o), {o.record: o}, state()), "pa_responses").claimed == 0


# --- (3) coordination of benefits on a CO-22 denial -------------------------------------------


def test_a_claim_billed_to_the_secondary_keyed_reconsideration_is_reported(world: World) -> None:
    o = next(
        x for x in outcomes_of(world, "appeals_denials")
        if "CO-22" in x.facts["disposition"].rule and x.decision == "reconsideration"
    )  # fmt: skip
    d = claim(world, o.record)
    key = {"family": "appeals_denials", "record": d.claim_id, "disposition": "reconsideration"}
    assert findings(key, world) == []
    billed = world.coverage(d.coverage_id)
    other_plan = next(
        p
        for p in world.plans
        if p.payer != world.plan(billed.plan_id).payer and p.kind == "commercial"
    )
    primary = replace(billed, id="COV-9002", plan_id=other_plan.id, relationship="self",
                      basis="employment", employer_size=500, rank=1,
                      effective=shift(d.service_date, -400), termination=None, status="active")  # fmt: skip
    secondary = replace(billed, relationship="spouse", rank=2)
    planted = with_coverages(world, d.mrn, [primary, secondary])
    f = only(findings(key, planted), "disposition")
    assert (f.claimed, f.derived) == ("reconsideration", "bill-secondary")
    assert "rules.cob" in f.rule and "CO-22" in f.rule
    assert findings(key | {"disposition": "bill-secondary", "deadline": None}, planted) == []


# --- (4) a DME order whose plan has ended ----------------------------------------------------


def test_a_dme_order_on_a_plan_that_has_ended_keyed_send_is_reported(world: World) -> None:
    o = pick(world, "dme", "send")
    od = order(world, o.record)
    assert findings(key_of(o), world) == []
    ended = [
        replace(c, termination=shift(world.clock, -10), status="terminated")
        for c in world.coverages_of(od.mrn)
    ]
    planted = with_coverages(world, od.mrn, ended)
    found = findings(key_of(o), planted)
    f = only(found, "decision")
    assert (f.claimed, f.derived) == ("send", "hold-coverage")
    assert "rules.coverage [x12-271-dates]" in f.rule
    assert only(found, "to_fax").detail == "no to_fax for hold-coverage"


def test_a_dme_order_on_a_plan_that_no_longer_pays_first_keyed_send_is_reported(
    world: World,
) -> None:
    o = next(
        x for x in outcomes_of(world, "dme")
        if x.decision == "send" and len(world.coverages_of(x.mrn)) == 1
    )  # fmt: skip
    (billed,) = world.coverages_of(o.mrn)
    payer = world.plan(billed.plan_id).payer
    other = next(p for p in world.plans if p.payer != payer and p.kind == "commercial")
    first = replace(billed, id="COV-9003", plan_id=other.id, relationship="self",
                    basis="employment", employer_size=500, status="active",
                    effective=shift(world.clock, -30), termination=None)  # fmt: skip
    planted = with_coverages(world, o.mrn, [first, replace(billed, relationship="spouse")])
    f = only(findings(key_of(o), planted), "decision")
    assert (f.claimed, f.derived) == ("send", "hold-coverage") and "rules.cob" in f.rule


def test_a_packet_missing_a_document_or_carrying_a_stale_note_is_reported(world: World) -> None:
    o = next(
        x for x in outcomes_of(world, "dme") if x.decision == "send" and x.value("never_attach")
    )
    od = order(world, o.record)
    stale = o.value("never_attach")[0]
    key = key_of(o) | {"documents": [*o.value("documents")[1:], stale]}
    f = only(findings(key, world), "documents")
    assert "misses required" in f.detail and f"lists decoy {stale}" in f.detail
    good = fax(od.mrn, o.value("to_fax"), o.value("documents"))
    assert embodied("t-1", key_of(o), {o.record: o}, state(fax__transmissions=[good])) == []
    wrong = fax(od.mrn, "5105550000", o.value("documents"))
    assert (
        only(
            embodied("t-1", key_of(o), {o.record: o}, state(fax__transmissions=[wrong])), "to_fax"
        ).claimed
        == "5105550000"
    )
    held = pick(world, "dme", "hold-missing")
    sent = state(fax__transmissions=[fax(held.mrn, "4155550142", [])])
    assert only(embodied("t-1", key_of(held), {held.record: held}, sent), "faxes").derived == []


# --- (5) a member the plan's kind forbids billing ---------------------------------------------


def test_a_medi_cal_claim_keyed_bill_patient_is_reported(world: World) -> None:
    o = next(
        x for x in outcomes_of(world, "appeals_denials")
        if x.decision == "bill-patient" and "PR-1" in x.facts["disposition"].rule
    )  # fmt: skip
    d = claim(world, o.record)
    medi_cal = next(p for p in world.plans if is_medicaid(p.kind))
    key = {"family": "appeals_denials", "record": d.claim_id, "disposition": "bill-patient"}
    assert findings(key, world) == []
    planted = replace(
        world,
        denials=[
            replace(x, plan_id=medi_cal.id) if x.claim_id == d.claim_id else x
            for x in world.denials
        ],
    )
    found = findings(key, planted)
    assert sorted(f.kind for f in found) == ["breach", "not-derivable"]
    assert all(f.rule.startswith("rules.cost_sharing [medicaid-payment-in-full") for f in found)
    assert all("medicaid_mco member may not be billed" in f.detail for f in found)
    assert all((f.record, f.field) == (d.claim_id, "disposition") for f in found)


# --- (7) the deadline that governs -------------------------------------------------------------


def test_a_deadline_on_the_wrong_clock_is_reported(world: World) -> None:
    corrected = pick(world, "appeals_denials", "corrected-claim")
    d = claim(world, corrected.record)
    assert d.appeal_deadline != d.timely_filing_deadline
    key = key_of(corrected) | {"deadline": d.appeal_deadline}
    f = only(findings(key, world), "deadline")
    assert (f.claimed, f.derived) == (d.appeal_deadline, d.timely_filing_deadline)
    assert "timely-filing limit" in f.detail
    assert f.rule.startswith("rules.denials [CO-") and "rules.windows [" in f.rule
    appeal = pick(world, "appeals_denials", "appeal")
    a = claim(world, appeal.record)
    f = only(findings(key_of(appeal) | {"deadline": a.timely_filing_deadline}, world), "deadline")
    assert f.derived == a.appeal_deadline and "appeal deadline" in f.detail


def test_a_claim_triaged_otherwise_or_appealed_when_it_must_not_be(world: World) -> None:
    o = pick(world, "appeals_denials", "write-off")
    d = claim(world, o.record)
    done = {"claim_id": d.claim_id, "disposition": "write-off"}
    assert embodied("t-1", key_of(o), {o.record: o}, state(ehr__denial_dispositions=[done])) == []
    wrong = state(ehr__denial_dispositions=[done | {"disposition": "appeal"}])
    assert only(embodied("t-1", key_of(o), {o.record: o}, wrong), "disposition").claimed == "appeal"
    appealed = state(ehr__denial_dispositions=[done], payer_a__appeals=[{"claim_id": d.claim_id}])
    assert only(embodied("t-1", key_of(o), {o.record: o}, appealed), "appeals").claimed == [
        "payer_a"
    ]


def test_an_appeal_goes_once_on_the_plans_channel_only_where_the_key_claims_it(
    world: World,
) -> None:
    o = next(x for x in outcomes_of(world, "appeals_denials") if x.value("channel") == "fax")
    d = claim(world, o.record)
    done = [{"claim_id": d.claim_id, "disposition": "appeal"}]
    letter = fax(d.mrn, o.addresses["appeals_fax"], o.value("attach"))
    keyed = key_of(o)
    assert (
        embodied(
            "t-1",
            keyed,
            {o.record: o},
            state(ehr__denial_dispositions=done, fax__transmissions=[letter]),
        )
        == []
    )
    assert (
        only(
            embodied("t-1", keyed, {o.record: o}, state(ehr__denial_dispositions=done)), "appeals"
        ).claimed
        == []
    )
    triage_only = {k: v for k, v in keyed.items() if k not in ("channel", "attach")}
    assert embodied("t-1", triage_only, {o.record: o}, state(ehr__denial_dispositions=done)) == []
    to_um = fax(d.mrn, "".join(ch for ch in world.plan(d.plan_id).fax if ch.isdigit()), [])
    f = only(
        embodied(
            "t-1",
            triage_only,
            {o.record: o},
            state(ehr__denial_dispositions=done, fax__transmissions=[to_um]),
        ),
        "fax_number",
    )
    assert f.derived == o.addresses["appeals_fax"]


# --- keys the audit cannot read, tasks without one, worlds that drifted ------------------------


def test_a_batch_key_is_compared_claim_by_claim(world: World) -> None:
    picked = [pick(world, "appeals_denials", d) for d in ("write-off", "corrected-claim", "appeal")]
    key = {
        "family": "appeals_denials",
        "records": [o.record for o in picked],
        "dispositions": {o.record: o.decision for o in picked},
    }
    assert findings(key, world) == []
    key["dispositions"][picked[1].record] = "appeal"
    f = only(findings(key, world), "disposition")
    assert (f.record, f.claimed, f.derived) == (picked[1].record, "appeal", "corrected-claim")


def test_malformed_keys_are_named_not_raised(world: World) -> None:
    o = pick(world, "prior_auth", "request")
    assert only(findings([1, 2], world), "answer_key").kind == "bad-key"  # type: ignore[arg-type]
    assert (
        only(findings({"family": "billing", "record": o.record}, world), "family").kind == "bad-key"
    )
    gone = only(findings({"family": "prior_auth", "record": "REF-1999-0001"}, world), "record")
    assert "holds no referral, claim or order 'REF-1999-0001'" in gone.detail
    odd = only(findings(key_of(o) | {"verdict": "yes"}, world), "verdict")
    assert odd.kind == "bad-key" and "not a field of a prior_auth answer key" in odd.detail
    claim_id = pick(world, "appeals_denials", "appeal").record
    assert (
        only(findings({"family": "prior_auth", "record": claim_id}, world), "family").kind
        == "bad-key"
    )


def _task_file(data: dict[str, Any]) -> Any:
    task, problems = native.parse_task(f"{data['family']}/{data['id']}.json", data["family"], data)
    assert task is not None, problems
    return task


def test_a_task_without_a_key_or_on_a_drifted_world_is_reported(
    generated: list[dict[str, Any]],
) -> None:
    data = generated[0]
    assert audit_task(_task_file(data)).ok
    bare = audit_task(_task_file({k: v for k, v in data.items() if k != "answer_key"}))
    assert [f.kind for f in bare.findings] == ["no-answer-key"] and not bare.keyed
    drifted = data | {"world": data["world"] | {"sha256": "0" * 64}}
    (f,) = audit_task(_task_file(drifted)).findings
    assert (f.kind, f.field, f.claimed) == ("world-drift", "world.sha256", "0" * 64)


# --- the command ------------------------------------------------------------------------------


def _cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "endstate", "corpus", "audit", *map(str, args)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip


def test_corpus_audit_lists_disagreements_and_fails(
    generated: list[dict[str, Any]], tmp_path: Path
) -> None:
    chosen = [d for d in generated if d["answer_key"].get("deadline")][:1] + generated[-2:]
    root = tmp_path / "c"
    for data in chosen:
        path = root / data["family"] / f"{data['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    ok = runner.invoke(corpus_app, ["audit", str(root)])
    assert ok.exit_code == 0, ok.output
    assert "3/3 audited task(s) agree with the rules" in ok.output
    wrong = chosen[0] | {"answer_key": chosen[0]["answer_key"] | {"deadline": "2020-01-01"}}
    (root / wrong["family"] / f"{wrong['id']}.json").write_text(json.dumps(wrong))
    report = tmp_path / "audit.json"
    bad = runner.invoke(corpus_app, ["audit", str(root), "--json", str(report)])
    assert bad.exit_code == 1
    for shown in (wrong["id"], "2020-01-01", "rules.denials", "1 disagreement"):
        assert shown in bad.output
    assert "2/3 audited task(s) agree with the rules" in bad.output
    found = json.loads(report.read_text())
    assert found["ok"] is False and found["findings"][0]["field"] == "deadline"


def test_corpus_audit_refuses_a_bad_path_in_one_line(tmp_path: Path) -> None:
    proc = _cli(tmp_path / "nope")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert [line for line in proc.stderr.splitlines() if line.startswith("error:")] == [
        f"error: {tmp_path / 'nope'}: corpus directory not found"
    ]


# --- validation calls the audit --------------------------------------------------------------


class _Page:
    async def goto(self, *args: Any, **kwargs: Any) -> None:
        return None


class _Context:
    async def new_page(self) -> _Page:
        return _Page()

    async def close(self) -> None:
        return None


class _Browser:
    async def new_context(self, **kwargs: Any) -> _Context:
        return _Context()


class _Env:
    """An environment whose every end state is the one a test gives (no server, no browser)."""

    def __init__(self, end: dict[str, Any]) -> None:
        self.end = end

    async def open_episode(self, public: Any, key: str) -> Any:
        from endstate.firewall import EpisodeBinding

        return type("Episode", (), {"binding": EpisodeBinding(run_id=key)})()

    async def read_state(self, episode: Any, page: Any) -> dict[str, Any]:
        return self.end

    async def close_episode(self, episode: Any) -> None:
        return None


def _validate(task: Any, world: World, end: dict[str, Any]) -> Any:
    import asyncio

    from endstate.builtin import validation

    validator = validation.Validator(_Env(end), _Browser(), 1, lambda t: False, world=world)
    (result,) = asyncio.run(validator.validate([task]))
    return result


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every trajectory plays to its end at once (the end state is the test's own)."""
    from endstate.builtin import validation
    from endstate.builtin.trajectory import PlayResult

    async def play(page: Any, steps: Any, *args: Any) -> PlayResult:
        return PlayResult(completed=len(steps))

    monkeypatch.setattr(validation, "play", play)


@pytest.mark.usefixtures("played")
def test_validation_fails_a_task_the_audit_contradicts_or_its_end_state_does_not_embody(
    generated: list[dict[str, Any]], world: World
) -> None:
    """The validator audits the key against the world it serves, and the reference's end state
    against the derived outcome: either disagreement fails the task, naming why."""
    data = next(
        d for d in generated if d["answer_key"].get("decision") == "not-in-force"
    )  # nothing may be sent: a request in the end state is the planted defect
    one_check = [{"type": "jmespath", "query": "state_document_version", "expected_value": 1,
                  "points": 1, "description": "state read", "category": "Task Resolution"}]  # fmt: skip
    task = _task_file(data | {"checks": one_check})
    clean = _validate(task, world, state() | {"state_document_version": 1})
    assert clean.audited and clean.audit == [] and clean.solvable
    mrn = referral(world, data["record"]).mrn
    sent = state(payer_b__pa_submissions=[{"member_mrn": mrn, "coverage_id": "COV-X"}])
    dirty = _validate(task, world, sent | {"state_document_version": 1})
    assert not dirty.ok and dirty.solvable
    (line,) = dirty.audit
    assert line.startswith("reference end state: end-state: ") and "requests" in line
    assert any(r.startswith("audit: reference end state") for r in dirty.reasons())
    wrong = _task_file(
        data | {"checks": one_check, "answer_key": data["answer_key"] | {"decision": "request"}}
    )
    keyed = _validate(wrong, world, state() | {"state_document_version": 1})
    assert not keyed.ok and "decision; claimed request, audit not-in-force" in keyed.audit[0]
    unkeyed = _validate(
        _task_file({k: v for k, v in data.items() if k != "answer_key"} | {"checks": one_check}),
        world,
        state(),
    )
    assert unkeyed.unkeyed and not unkeyed.audited and unkeyed.audit == []


@pytest.mark.parametrize("seed", [3, 91731, 20261203])
def test_fresh_corpora_of_unused_seeds_hold_no_disagreement(seed: int, tmp_path: Path) -> None:
    """The CI subset of the sweep (`make audit-sweep` runs twenty seeds): a full corpus made
    from a world nobody tuned against, every answer key re-derived without a template."""
    from endstate.builtin.audit import audit_corpus
    from endstate.builtin.generator import generate_corpus

    generate_corpus(seed, 63, tmp_path / "corpus")
    report = audit_corpus(tmp_path / "corpus")
    assert report.findings == [], report.findings[:3]
    assert report.audited == 63

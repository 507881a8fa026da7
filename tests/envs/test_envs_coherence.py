"""Clinical coherence of the built-in world: the catalogue is consistent, generated worlds pass
every check, and each check catches a record broken by hand (naming the record)."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

import pytest

from endstate.envs.world import (
    DEFAULT_CLOCK,
    Adjustment,
    Referral,
    ReferralDx,
    Service,
    World,
    catalog,
    clinical,
    dme_catalog,
    generate_world,
)
from endstate.envs.world import generate as generate_module
from endstate.envs.world.coherence import problems
from endstate.envs.world.texts import Course

SEEDS = [20260302, 1, 2, 3, 5, 7, 11]
CLOCKS = [DEFAULT_CLOCK, "2027-01-15T08:30:00"]


@pytest.fixture(scope="module")
def world() -> World:
    return generate_world()


def fresh() -> World:
    """A world of one's own to break (records are replaced in its lists)."""
    return generate_world()


def _named(found: list[str], record: str, words: str) -> bool:
    return any(record in m and words in m for m in found)


# -- the catalogue ------------------------------------------------------------------------


def test_catalogue_procedures_are_justified_and_sided_by_their_diagnoses() -> None:
    codes = [p.code for d in catalog.DEPARTMENTS for p in d.procedures]
    assert len(codes) == len(set(codes)), "a code in two departments doubles its payer rule"
    for dept in catalog.DEPARTMENTS:
        known = {d.code: d for d in dept.diagnoses}
        for proc in dept.procedures:
            assert proc.indications and set(proc.indications) <= set(known), proc.code
            assert proc.site in catalog.SITES and proc.max_units >= 1
            if proc.lateral:  # a paired-organ procedure is indicated only by a sided code
                assert all(known[c].side for c in proc.indications), proc.code
        for dx in dept.diagnoses:
            assert clinical.episodes(dx, dept, 3), f"{dx.code} indicates nothing"
            assert dx.condition in clinical.CONDITIONS
            assert set(dx.secondary) <= set(known) - {dx.code}, dx.code
            others = {known[c].condition for c in dx.secondary}
            assert dx.condition not in others, f"{dx.code}: one condition coded twice"
            assert dx.side in (None, "RT", "LT", "50")
    for a, b, why in catalog.CONFLICTS:
        assert a in codes and b in codes and why


def test_catalogue_sides_follow_the_codes() -> None:
    sides = {"M17.11": "RT", "M17.12": "LT", "M17.0": "50", "S83.241A": "RT", "H25.12": "LT"}
    for code, side in sides.items():
        assert clinical.diagnosis(code).side == side
    knee = catalog.DEPARTMENTS[1]
    tka = next(p for p in knee.procedures if p.code == "27447")
    assert clinical.side_fits(tka, "RT", "RT") and not clinical.side_fits(tka, "LT", "RT")
    assert not clinical.side_fits(tka, "50", "50"), "knee replacement is one side at a time"
    assert clinical.conflict("29881", "27447")


def test_dme_items_state_their_qualifying_diagnosis_and_lab() -> None:
    for item in dme_catalog.DME_ITEMS:
        assert item.diagnosis is not None and item.need and item.alternatives
        assert (item.lab is not None) == ("lab" in item.required_documents), item.hcpcs
    assert clinical.dme_item("E1390").lab == "SpO2"
    assert clinical.dme_item("E0784").lab == "HbA1c"


# -- generated worlds ---------------------------------------------------------------------


@pytest.mark.parametrize("clock", CLOCKS)
@pytest.mark.parametrize("seed", SEEDS)
def test_generated_worlds_are_coherent(seed: int, clock: str) -> None:
    w = generate_world(seed, clock)
    assert problems(w) == []
    for r in w.referrals:
        assert all(s.quantity == 1 for s in r.services if s.laterality == "50")
    for d in w.denials:
        share = sum(a.amount for x in d.lines for a in x.adjustments if a.group == "PR")
        assert d.patient_responsibility == pytest.approx(share, abs=0.005)


def test_paid_lines_explain_the_shortfall(world: World) -> None:
    paid = [x for d in world.denials for x in d.lines if x.carc == "45"]
    assert paid, "some lines are paid"
    for x in paid:
        assert x.billed >= x.allowed >= x.paid
        pr = sum(a.amount for a in x.adjustments if a.group == "PR")
        assert x.allowed - x.paid == pytest.approx(pr, abs=0.005)
        co = [a for a in x.adjustments if (a.group, a.carc) == ("CO", "45")]
        assert co and co[0].amount == pytest.approx(x.billed - x.allowed, abs=0.005)


def test_generation_fails_on_an_incoherent_record(monkeypatch: pytest.MonkeyPatch) -> None:
    def topical(rng: random.Random, dx: catalog.Dx, years: int) -> Course:
        return Course("topical therapy", 12)

    monkeypatch.setattr(generate_module, "conservative_course", topical)
    with pytest.raises(ValueError, match=r"(?s)incoherent.*REF-2026-\d{4}.*topical therapy.*more"):
        generate_world()


# -- each check catches a broken record ---------------------------------------------------


def _adult_referral(w: World, i: int = 0) -> tuple[int, Referral]:
    """A referral of a patient over 60, so no diagnosis below is implausible for the age."""
    found = [
        (n, r)
        for n, r in enumerate(w.referrals)
        if clinical.age(w.patient(r.mrn).dob, w.today) >= 60
    ]
    return found[i]


def _dx(code: str, primary: bool = True) -> ReferralDx:
    return ReferralDx(code, clinical.diagnosis(code).description, primary)


def _svc(code: str, side: str | None = None, units: int = 1) -> Service:
    proc = next(p for d in catalog.DEPARTMENTS for p in d.procedures if p.code == code)
    return Service(code, proc.description, units, side)


def _broken(w: World, dept: str, dxs: list[ReferralDx], services: list[Service]) -> str:
    n, ref = _adult_referral(w)
    w.referrals[n] = replace(ref, department=dept, diagnoses=dxs, services=services)
    return ref.id


def test_catches_a_service_no_diagnosis_indicates() -> None:
    w = fresh()
    rid = _broken(w, "Diagnostic Radiology", [_dx("R51.9")], [_svc("72148")])
    assert _named(problems(w), rid, "72148 is not indicated by any of its diagnoses (R51.9)")


def test_catches_a_side_the_diagnosis_does_not_name() -> None:
    w = fresh()
    rid = _broken(w, "Orthopedic Surgery", [_dx("M17.11")], [_svc("27447", "LT")])
    assert _named(problems(w), rid, "27447 laterality LT does not match")
    rid = _broken(w, "Orthopedic Surgery", [_dx("M17.11")], [_svc("20610", "50")])
    assert _named(problems(w), rid, "20610 laterality 50 does not match")
    rid = _broken(w, "Orthopedic Surgery", [_dx("M17.0")], [_svc("20610")])
    assert _named(problems(w), rid, "20610 laterality none")


def test_catches_bilateral_billed_as_two_units_and_units_over_the_limit() -> None:
    w = fresh()
    rid = _broken(w, "Orthopedic Surgery", [_dx("M17.0")], [_svc("20610", "50", units=2)])
    found = problems(w)
    assert _named(found, rid, "bilateral (50) is billed as one unit, not 2")
    assert _named(found, rid, "20610 x2 exceeds 1 unit(s) per date")


def test_catches_procedures_that_do_not_go_together() -> None:
    w = fresh()
    dxs = [_dx("S83.241A"), _dx("M17.11", primary=False)]
    rid = _broken(w, "Orthopedic Surgery", dxs, [_svc("29881", "RT"), _svc("27447", "RT")])
    found = problems(w)
    assert _named(found, rid, "29881 and 27447 do not go together")
    assert _named(found, rid, "secondary diagnosis M17.11 does not fit primary S83.241A")


def test_catches_a_note_whose_therapy_does_not_fit_the_diagnosis() -> None:
    w = fresh()
    note = next(d for d in w.documents if d.kind == "clinical_note" and "despite" in d.text)
    head, _, tail = note.text.partition(" weeks of ")
    text = head + " weeks of topical therapy." + tail.split(".", 1)[1]
    w.documents[w.documents.index(note)] = replace(note, text=text)
    assert _named(problems(w), note.id, "therapy 'topical therapy' does not fit")


def test_a_child_is_never_given_adult_conservative_care() -> None:
    """Chest pain, sleep apnoea and snoring happen in children: their care is chosen for the
    age, so a teenager's letter never quotes aspirin and a statin."""
    chest = clinical.CONDITIONS["chest_pain"]
    assert any("aspirin" in t for t in chest.therapies_for(40))
    assert chest.therapies_for(13) and not any(
        "aspirin" in t or "statin" in t for t in chest.therapies_for(13)
    )
    for dx in clinical.DIAGNOSES.values():
        if dx.condition and clinical.condition(dx).therapies:
            assert clinical.condition(dx).therapies_for(max(dx.min_age, 10)), dx.code


def test_catches_a_teenager_on_aspirin_and_a_statin() -> None:
    w = fresh()
    note = next(d for d in w.documents if d.kind == "clinical_note" and "despite" in d.text)
    head, _, tail = note.text.partition(" weeks of ")
    text = (
        head
        + " weeks of aspirin and statin therapy with risk-factor modification."
        + (tail.split(".", 1)[1])
    )
    w.documents[w.documents.index(note)] = replace(note, text=text)
    p = w.patient(note.mrn)
    born = clinical.age(p.dob, w.today)
    w.patients[w.patients.index(p)] = replace(
        p, dob=p.dob.replace(p.dob[:4], str(int(p.dob[:4]) + born - 13), 1)
    )
    assert _named(problems(w), note.id, "not before age 18: aspirin is not given to children")


def test_catches_documents_out_of_date_order() -> None:
    w = fresh()
    future = (w.today + timedelta(days=3)).isoformat()
    first = w.documents[0]
    w.documents[0] = replace(first, date=future)
    assert _named(problems(w), first.id, "after today")
    w = fresh()
    old = next(d for d in w.documents if d.kind == "lmn" and d.status == "superseded")
    w.documents[w.documents.index(old)] = replace(old, date=w.today.isoformat())
    assert _named(problems(w), old.id, "superseded letter is not older")
    w = fresh()
    letter = next(d for d in w.documents if d.kind == "lmn" and d.status == "final")
    w.documents[w.documents.index(letter)] = replace(letter, date="2020-01-01")
    assert _named(problems(w), letter.id, "predates the consultation")


def _paid_line(w: World) -> tuple[int, int]:
    return next(
        (n, i)
        for n, d in enumerate(w.denials)
        for i, x in enumerate(d.lines)
        if x.carc == "45" and any(a.group == "PR" for a in x.adjustments)
    )


def test_catches_a_paid_line_short_of_allowed_with_no_patient_share() -> None:
    w = fresh()
    n, i = _paid_line(w)
    claim = w.denials[n]
    line = claim.lines[i]
    kept = [a for a in line.adjustments if a.group != "PR"]
    lines = [*claim.lines[:i], replace(line, adjustments=kept), *claim.lines[i + 1 :]]
    w.denials[n] = replace(claim, lines=lines)
    found = problems(w)
    label = f"{claim.claim_id} line {line.line}"
    assert _named(found, label, "is not explained by PR adjustments")
    assert _named(found, label, "adjustments do not sum to billed - paid")
    assert _named(found, claim.claim_id, "patient_responsibility")
    share = [Adjustment("PR", "96", a.amount) for a in line.adjustments if a.group == "PR"]
    lines[i] = replace(line, adjustments=[*kept, *share])  # a PR code that is no member share
    w.denials[n] = replace(claim, lines=lines)
    assert _named(problems(w), label, "is not one of PR-1/2/3/27")


def test_catches_paid_above_allowed_and_a_wrong_claim_total() -> None:
    w = fresh()
    n, i = _paid_line(w)
    claim = w.denials[n]
    line = claim.lines[i]
    lines = [*claim.lines[:i], replace(line, paid=line.allowed + 1), *claim.lines[i + 1 :]]
    w.denials[n] = replace(claim, lines=lines, billed=claim.billed + 5)
    found = problems(w)
    assert _named(found, f"{claim.claim_id} line {line.line}", ">= paid")
    assert _named(found, claim.claim_id, "billed")


def test_catches_claim_lines_of_different_episodes() -> None:
    w = fresh()
    n, claim = next(
        (n, d)
        for n, d in enumerate(w.denials)
        if any(
            p.npi == d.provider_npi and p.department == "Orthopedic Surgery" for p in w.providers
        )
    )
    first = claim.lines[0]
    lines = [
        replace(first, cpt="29881", modifier="RT"),
        replace(first, line=2, cpt="29827", modifier="LT"),
    ]
    w.denials[n] = replace(claim, lines=lines)
    assert _named(problems(w), claim.claim_id, "are not one episode of care")


def test_catches_a_dme_lab_that_does_not_fit_the_item() -> None:
    w = fresh()
    pumps = {o.id for o in w.dme_orders if o.hcpcs == "E0784"}
    lab = next(d for d in w.documents if d.kind == "lab" and d.related_id in pumps)
    text = lab.text.replace("HbA1c", "Resting SpO2 86% on room air; HbA1c")
    w.documents[w.documents.index(lab)] = replace(lab, text=text)
    assert _named(problems(w), lab.id, "the lab shows ['SpO2', 'HbA1c']")


def test_catches_a_dme_document_citing_another_diagnosis_or_kind() -> None:
    w = fresh()
    doc = next(d for d in w.documents if d.kind == "prescription")
    order = next(o for o in w.dme_orders if o.id == doc.related_id)
    code = clinical.dme_item(order.hcpcs).diagnosis
    assert code is not None
    w.documents[w.documents.index(doc)] = replace(
        doc, kind="sleep_study", text=doc.text.replace(code.code, "R51.9")
    )
    found = problems(w)
    if order.hcpcs != "E0601":
        assert _named(found, doc.id, "a sleep_study is not among the documents")
    assert _named(found, doc.id, f"does not cite the qualifying diagnosis {code.code}")


def test_catches_a_face_to_face_after_the_order() -> None:
    w = fresh()
    f2f = next(d for d in w.documents if d.kind == "face_to_face")
    order = next(o for o in w.dme_orders if o.id == f2f.related_id)
    w.documents[w.documents.index(f2f)] = replace(f2f, date=w.today.isoformat())
    assert order.ordered < w.today.isoformat()
    assert _named(problems(w), order.id, "face_to_face is dated after the order")


# -- coordination of benefits ---------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_some_referrals_are_registered_with_a_secondary_beside_an_active_primary(
    seed: int,
) -> None:
    w = generate_world(seed)
    coverage = {c.id: c for c in w.coverages}
    slipped = [r for r in w.referrals if coverage[r.coverage_id].rank == 2]
    assert 1 <= len(slipped) <= 3
    for ref in slipped:
        primary = w.primary_on(ref.mrn, ref.appointment)
        assert primary is not None and primary.id != ref.coverage_id
        assert w.plan(primary.plan_id).payer != w.plan(coverage[ref.coverage_id].plan_id).payer
    # Nothing is pended on a slipped referral: no request went anywhere yet.
    assert not {r.referral_id for r in w.prior_requests} & {r.id for r in slipped}


def test_catches_medicaid_primary_beside_another_plan_and_two_plans_of_one_payer() -> None:
    w = fresh()
    medicaid = next(p for p in w.plans if p.kind == "medicaid_mco")
    commercial = next(p for p in w.plans if p.kind == "commercial" and p.payer != medicaid.payer)
    primary = next(c for c in w.coverages if c.rank == 1 and c.status == "active")
    i = w.coverages.index(primary)
    w.coverages[i] = replace(primary, plan_id=medicaid.id)
    w.coverages.append(replace(primary, id="COV-9998", plan_id=commercial.id, rank=2))
    found = problems(w)
    # Medicaid pays last (rules.cob): ranked first beside a commercial plan, it is refused.
    assert _named(found, primary.id, "ranked 1, but coordination of benefits puts it 2")
    w.coverages[-1] = replace(w.coverages[-1], plan_id=medicaid.id)
    assert _named(problems(w), primary.mrn, "two coverages in force from one payer")


def test_catches_a_secondary_with_no_primary_and_a_referral_on_anothers_coverage() -> None:
    w = fresh()
    ref = w.referrals[0]
    own = next(c for c in w.coverages if c.id == ref.coverage_id)
    w.coverages[w.coverages.index(own)] = replace(own, rank=2, status="active")
    others = next(c for c in w.coverages if c.mrn != ref.mrn)
    w.referrals[1] = replace(w.referrals[1], coverage_id=others.id, mrn=ref.mrn)
    found = problems(w)
    assert _named(found, own.id, "ranked 2, but coordination of benefits puts it 1")
    assert _named(found, w.referrals[1].id, "belongs to another patient")

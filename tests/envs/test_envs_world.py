"""The world generator: deterministic, varied by seed, and populated as the design requires."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date

import pytest

from endstate.envs.shared.forms import fax_digits
from endstate.envs.world import DEFAULT_CLOCK, GENERATOR_VERSION, generate_world, npi_valid


def test_same_seed_gives_byte_identical_world() -> None:
    a, b = generate_world(7), generate_world(7)
    assert a.canonical_json().encode() == b.canonical_json().encode()
    assert a.sha256 == b.sha256 and a.id == b.id


def test_different_seeds_give_different_worlds() -> None:
    a, b = generate_world(7), generate_world(8)
    assert a.sha256 != b.sha256
    assert [p.mrn for p in a.patients] != [p.mrn for p in b.patients]


def test_clock_is_pinned_and_configurable() -> None:
    assert generate_world(7).clock == DEFAULT_CLOCK == "2026-03-02T09:00:00"
    later = generate_world(7, clock="2027-01-15T08:30:00")
    assert later.clock == "2027-01-15T08:30:00"
    assert later.sha256 != generate_world(7).sha256
    assert min(r.appointment for r in later.referrals) > "2027-01-15"
    with pytest.raises(ValueError):
        generate_world(7, clock="03/02/2026")


def test_world_id_names_the_seed_and_hash() -> None:
    w = generate_world(11)
    assert w.id.startswith(f"embedded-v{GENERATOR_VERSION}-s11-") and w.id.endswith(w.sha256[:12])
    assert json.loads(w.canonical_json())["seed"] == 11


@pytest.mark.parametrize("seed", [1, 2, 20260302])
def test_minimum_counts(seed: int) -> None:
    w = generate_world(seed)
    assert len(w.patients) >= 60
    assert len(w.plans) >= 6
    assert len(w.referrals) >= 40
    assert len(w.denials) >= 30
    assert len(w.dme_orders) >= 15
    assert len({p.mrn for p in w.patients}) == len(w.patients)


@pytest.mark.parametrize("seed", [1, 2, 20260302])
def test_patients_include_confusable_people(seed: int) -> None:
    w = generate_world(seed)
    names = Counter((p.first, p.last) for p in w.patients)
    twins = [n for n, k in names.items() if k >= 2]
    assert len(twins) >= 3
    for first, last in twins:
        dobs = {p.dob for p in w.patients if (p.first, p.last) == (first, last)}
        assert len(dobs) >= 2, "same-name patients must differ by date of birth"
    surnames = Counter(p.last for p in w.patients)
    assert sum(1 for k in surnames.values() if k >= 3) >= 3
    firsts = {p.first for p in w.patients}
    assert any(
        {a, b} <= firsts
        for a, b in [
            ("Jon", "John"),
            ("Sara", "Sarah"),
            ("Marc", "Mark"),
            ("Steven", "Stephen"),
            ("Brian", "Bryan"),
            ("Alan", "Allen"),
            ("Katherine", "Catherine"),
        ]
    )


def test_plans_and_coverage_statuses() -> None:
    w = generate_world(3)
    kinds = {p.kind for p in w.plans}
    assert {"commercial", "medicare_advantage", "medicaid_mco", "delegated_group"} <= kinds
    assert any(p.portal is None for p in w.plans)
    assert {p.portal for p in w.plans} >= {"payer_a", "payer_b", None}
    assert {c.status for c in w.coverages} == {"active", "inactive", "terminated", "future"}
    today = w.today.isoformat()
    for c in w.coverages:
        if c.status == "future":
            assert c.effective > today
        if c.status == "terminated":
            assert c.termination is not None and c.termination < today


def test_referrals_are_complete() -> None:
    w = generate_world(5)
    npis = {p.npi for p in w.providers}
    assert all(npi_valid(n) for n in npis)
    lateral = 0
    for r in w.referrals:
        assert r.provider_npi in npis and r.referring_npi in npis
        assert r.diagnoses and r.services and r.department
        assert sum(d.primary for d in r.diagnoses) == 1
        assert date.fromisoformat(r.appointment) > w.today
        lateral += sum(1 for s in r.services if s.laterality)
        assert all(s.quantity >= 1 for s in r.services)
    assert lateral >= 5


def test_denials_have_lines_codes_and_deadlines() -> None:
    w = generate_world(5)
    past_deadline = 0
    for d in w.denials:
        assert d.lines and d.history and d.appeal_deadline > d.denied
        assert any(x.carc != "45" for x in d.lines), "each claim has at least one denied line"
        assert all(x.group in ("CO", "PR", "OA") for x in d.lines)
        past_deadline += d.appeal_deadline < w.today.isoformat()
    assert past_deadline >= 1
    assert any(x.rarcs for d in w.denials for x in d.lines)
    assert any(d.delegated_to for d in w.denials) or any(p.delegated_to for p in w.plans)


def test_dme_orders_name_suppliers_with_valid_fax_numbers() -> None:
    w = generate_world(5)
    for o in w.dme_orders:
        assert o.required_documents
        assert fax_digits(o.supplier_fax)[1] is None


def test_documents_include_decoys() -> None:
    w = generate_world(5)
    statuses = Counter(d.status for d in w.documents)
    assert statuses["superseded"] >= 3 and statuses["draft"] >= 3
    assert all(not d.signed for d in w.documents if d.status == "draft")
    kinds = {d.kind for d in w.documents}
    assert {"clinical_note", "lmn", "imaging", "face_to_face", "prescription"} <= kinds
    for d in w.documents:
        patient = w.patient(d.mrn)
        assert patient.mrn in d.text, "every document names its own patient"


def test_payer_rules_cover_every_plan_with_policy_text() -> None:
    w = generate_world(5)
    for plan in w.plans:
        rules = [r for r in w.payer_rules if r.plan_id == plan.id]
        assert rules and any(r.requires_auth for r in rules)
        assert all(r.cpt in r.policy_text and plan.name in r.policy_text for r in rules)
    by_plan = {
        p.id: frozenset(r.cpt for r in w.payer_rules if r.plan_id == p.id and r.requires_auth)
        for p in w.plans
    }
    assert len(set(by_plan.values())) >= 4, "plans must differ in what needs authorization"

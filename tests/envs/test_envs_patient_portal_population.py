"""The patient portal's population: a pure function of the world's seed and clock, drawn with
its own rng (the world stays byte-identical), with the distributions the hard pages need."""

from __future__ import annotations

import sqlite3
from collections import Counter
from datetime import date

import pytest

from endstate.envs.suite.world_db import build_template
from endstate.envs.systems.patient_portal.population import (
    BIG_LABS,
    LAB_ROWS,
    PATIENTS,
    generate,
    of_world,
)
from endstate.envs.world import DEFAULT_CLOCK, generate_world

SEEDS = (20260302, 99, 3)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_same_seed_same_rows(seed: int) -> None:
    assert generate(seed, DEFAULT_CLOCK) == generate(seed, DEFAULT_CLOCK)


def test_different_seeds_give_different_populations() -> None:
    a, b = generate(1, DEFAULT_CLOCK), generate(2, DEFAULT_CLOCK)
    assert [p.username for p in a.patients] != [p.username for p in b.patients]
    assert a.labs != b.labs and a.providers != b.providers


def test_the_clock_places_appointments() -> None:
    later = "2026-08-25T18:00:00"
    people = generate(5, later)
    upcoming = [a for a in people.appointments if a.status == "scheduled"]
    assert upcoming and all(a.starts_at >= later for a in upcoming)
    assert all(a.starts_at < later for a in people.appointments if a.status == "completed")


def test_the_world_is_untouched_by_the_portal() -> None:
    """The portal draws from its own rng: the world (and so every corpus) is unchanged."""
    before = generate_world(20260302).canonical_json()
    generate(20260302, DEFAULT_CLOCK)
    assert generate_world(20260302).canonical_json() == before


@pytest.mark.parametrize("seed", SEEDS)
def test_distributions_hold(seed: int) -> None:
    people = generate(seed, DEFAULT_CLOCK)
    assert len(people.patients) == PATIENTS >= 40
    assert len(people.providers) == 160
    assert len({p.npi for p in people.providers}) == 160
    assert len({p.username for p in people.patients}) == PATIENTS
    ids = {p.id for p in people.patients}
    labs = Counter(r.patient_id for r in people.labs)
    assert set(labs) == ids
    assert min(labs.values()) == LAB_ROWS[0] and max(labs.values()) == LAB_ROWS[1]
    assert all(LAB_ROWS[0] <= n <= LAB_ROWS[1] for n in labs.values())
    assert sorted(labs.values())[-len(BIG_LABS) :] == sorted(BIG_LABS)
    assert len(people.labs) < 12_000  # a few large histories, the rest short
    allergic = {a.patient_id for a in people.allergies}
    assert 0.4 <= 1 - len(allergic) / PATIENTS <= 0.6  # about half have none
    current = {p.patient_id for p in people.prescriptions}
    assert 0 < PATIENTS - len(current) < PATIENTS  # some have nothing current
    problems = Counter(c.patient_id for c in people.conditions)
    assert 180 <= max(problems.values()) <= 210


@pytest.mark.parametrize("seed", SEEDS[:1])
def test_records_agree_with_each_other(seed: int) -> None:
    people = generate(seed, DEFAULT_CLOCK)
    today = date.fromisoformat(DEFAULT_CLOCK[:10]).isoformat()
    meds = {m.id: m for m in people.medications}
    # Every prescription is a medication still taken, and every one still taken has one.
    assert {p.medication_id for p in people.prescriptions} == {
        m.id for m in people.medications if m.stop is None
    }
    assert all(meds[p.medication_id].patient_id == p.patient_id for p in people.prescriptions)
    # Active problems have no end date; ended ones end after they start, never in the future.
    assert any(c.end_date is None for c in people.conditions)
    assert all(c.end_date is None or c.onset <= c.end_date <= today for c in people.conditions)
    # Labs are numbered per patient in date order.
    for pid in {p.id for p in people.patients}:
        rows = [r for r in people.labs if r.patient_id == pid]
        assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
        assert [r.collected for r in rows] == sorted(r.collected for r in rows)
    # Every patient has an upcoming appointment, named providers exist, ledgers balance.
    staff = {p.id for p in people.providers}
    assert all(a.provider_id in staff for a in people.appointments)
    upcoming = {a.patient_id for a in people.appointments if a.status == "scheduled"}
    assert upcoming == {p.id for p in people.patients}
    assert {e.kind for e in people.ledger} == {"charge", "payment", "adjustment"}
    assert all((e.amount > 0) == (e.kind == "charge") for e in people.ledger)
    assert any(m.needs_reply for m in people.messages)
    assert not all(m.needs_reply for m in people.messages)


def test_the_template_holds_the_population() -> None:
    world = generate_world(20260302)
    people = of_world(world)
    conn = sqlite3.connect(":memory:")
    conn.deserialize(build_template(world))
    counts = {
        table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        for table in ("pp_patients", "pp_providers", "pp_labs", "pp_conditions", "pp_ledger")
    }
    assert counts == {
        "pp_patients": len(people.patients),
        "pp_providers": len(people.providers),
        "pp_labs": len(people.labs),
        "pp_conditions": len(people.conditions),
        "pp_ledger": len(people.ledger),
    }
    conn.close()

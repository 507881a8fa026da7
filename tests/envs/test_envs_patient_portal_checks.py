"""The portal population's coherence checks: generated populations pass them, and each check
catches a record broken by hand, naming the patient, the record and what disagrees; a broken
generator fails generation with that message."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

import pytest

from endstate.envs.systems.patient_portal import catalog, checks, social_findings
from endstate.envs.systems.patient_portal.clinic import SLOTS
from endstate.envs.systems.patient_portal.model import (
    Condition,
    Imaging,
    LabResult,
    LedgerEntry,
    Medication,
    Population,
)
from endstate.envs.systems.patient_portal.physiology import egfr
from endstate.envs.systems.patient_portal.population import generate, population
from endstate.envs.world import DEFAULT_CLOCK, DEFAULT_SEED

TODAY = date.fromisoformat(DEFAULT_CLOCK[:10])


@pytest.fixture(scope="module")
def pop() -> Population:
    return population(DEFAULT_SEED, DEFAULT_CLOCK)


def _found(pop: Population, **rows: Any) -> list[str]:
    """The problems of the population with some of its tables replaced."""
    return checks.problems(replace(pop, **rows), TODAY)


def _named(found: list[str], *words: str) -> bool:
    return any(all(w in line for w in words) for line in found)


def _born(years: int, on: str) -> str:
    """A date of birth that makes the patient `years` old on `on` (and for a while after)."""
    day = date.fromisoformat(on[:10])
    return (day - timedelta(days=365 * years + 100)).isoformat()


@pytest.mark.parametrize("seed", [DEFAULT_SEED, 99, 3, 7, 11, 2027])
def test_generated_populations_are_coherent(seed: int) -> None:
    assert checks.problems(population(seed, DEFAULT_CLOCK), TODAY) == []


def test_a_population_that_breaks_a_rule_is_never_generated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(catalog, "STREETS", ("Oak  St",))  # a doubled space in every address
    with pytest.raises(checks.IncoherentPopulation) as failed:
        generate(5, DEFAULT_CLOCK)
    text = str(failed.value)
    assert text.startswith("patient portal population of seed 5 at 2026-03-02T09:00:00")
    assert "patient PT-000001 field address has a doubled space: '" in text
    assert "... and " in text  # a long list is cut, with how many more


# -- (a) age ------------------------------------------------------------------------------


def test_catches_a_teenager_on_a_statin_and_aspirin_and_knee_arthritis_at_thirty(
    pop: Population,
) -> None:
    statin = next(m for m in pop.medications if m.drug.startswith("Simvastatin"))
    patients = tuple(
        replace(p, dob=_born(13, statin.start)) if p.id == statin.patient_id else p
        for p in pop.patients
    )
    found = _found(pop, patients=patients)
    assert _named(found, statin.patient_id, f"medication {statin.id}", "at age 13")
    assert _named(found, "not before age 18: a statin")
    aspirin = replace(statin, id=99_999, drug="Aspirin 81 MG Oral Tablet")
    found = _found(pop, patients=patients, medications=(*pop.medications, aspirin))
    assert _named(found, "medication 99999 (Aspirin 81 MG Oral Tablet)", "Reye's syndrome")

    knee = Condition(
        99_999, "PT-000001", "239873007", "Osteoarthritis of knee (disorder)", "", None
    )
    dob = pop.patient("PT-000001").dob
    onset = date.fromisoformat(dob).replace(year=int(dob[:4]) + 30).isoformat()
    found = _found(pop, conditions=(*pop.conditions, replace(knee, onset=onset)))
    assert _named(found, "PT-000001 problem 99999 (Osteoarthritis of knee", "at age 30")


def test_catches_a_vaccine_given_outside_its_ages(pop: Population) -> None:
    old = next(p for p in pop.patients if p.dob < "1960-01-01")
    flu = next(v for v in pop.immunizations if v.cvx == "140")
    at_60 = (date.fromisoformat(old.dob).replace(year=int(old.dob[:4]) + 60, day=1)).isoformat()
    at_60 = (date.fromisoformat(at_60) + timedelta(days=40)).isoformat()
    hpv = replace(
        flu, id=99_999, patient_id=old.id, cvx="62", vaccine="HPV, quadrivalent", given=at_60
    )
    found = _found(pop, immunizations=(*pop.immunizations, hpv))
    assert _named(found, f"{old.id} immunization 99999 (HPV", "at age 60", "(9 to 26)")


# -- (b) imaging --------------------------------------------------------------------------


def test_catches_a_plain_film_after_an_mri_of_the_same_knee(pop: Population) -> None:
    mri = next(x for x in pop.imaging if x.modality == "MRI")
    film = Imaging(
        99_999,
        mri.patient_id,
        (date.fromisoformat(mri.date) + timedelta(days=30)).isoformat(),
        "XR",
        "XR knee, 3 views",
        mri.site,
        mri.reason,
        "Joint-space narrowing with marginal osteophytes",
        mri.ordered_by,
    )
    found = _found(pop, imaging=(*pop.imaging, film))
    assert _named(found, "imaging 99999 (XR knee", "a plain film of the knee after its MRI")
    assert _named(found, f"imaging {mri.id}")
    fine = replace(film, date=(date.fromisoformat(mri.date) - timedelta(days=30)).isoformat())
    assert not _named(_found(pop, imaging=(*pop.imaging, fine)), "after its MRI")


def test_catches_imaging_for_a_problem_the_patient_does_not_have(pop: Population) -> None:
    x = pop.imaging[0]
    found = _found(pop, imaging=(replace(x, reason="Gout (disorder)"), *pop.imaging[1:]))
    assert _named(found, f"imaging {x.id}", "field reason 'Gout (disorder)' is not on the")


# -- (c) labs -----------------------------------------------------------------------------


def _pair(pop: Population) -> tuple[LabResult, LabResult]:
    """A creatinine and the eGFR drawn with it."""
    by = {(r.patient_id, r.collected, r.loinc): r for r in pop.labs}
    cr = next(
        r for r in pop.labs if r.loinc == "38483-4" and (r.patient_id, r.collected, "98979-8") in by
    )
    return cr, by[(cr.patient_id, cr.collected, "98979-8")]


def _with(pop: Population, *changed: LabResult) -> tuple[LabResult, ...]:
    new = {(r.patient_id, r.seq): r for r in changed}
    return tuple(new.get((r.patient_id, r.seq), r) for r in pop.labs)


def test_catches_an_egfr_that_disagrees_with_its_creatinine(pop: Population) -> None:
    cr, gfr = _pair(pop)
    found = _found(pop, labs=_with(pop, replace(gfr, value=str(int(gfr.value) + 12))))
    assert _named(
        found, f"{gfr.patient_id} lab #{gfr.seq}", f"does not agree with creatinine {cr.value}"
    )


def test_catches_creatinine_and_egfr_rising_together(pop: Population) -> None:
    """Two draws of one patient: a later creatinine higher than the one before, and an eGFR
    that rose with it (each eGFR is what the formula gives: only the direction is wrong)."""
    pid = next(p.id for p in pop.patients if p.sex == "F")
    born = pop.patient(pid).dob

    def years(day: str) -> int:
        return (date.fromisoformat(day) - date.fromisoformat(born)).days // 365

    first, later = "2024-01-10T00:00:00", "2025-01-10T00:00:00"
    rows = [
        LabResult(pid, 90_001, first, "38483-4", "0.80"),
        LabResult(pid, 90_002, first, "98979-8", f"{egfr(0.80, years(first[:10]), 'F'):.0f}"),
        LabResult(pid, 90_003, later, "38483-4", "0.95"),
        LabResult(pid, 90_004, later, "98979-8", f"{egfr(0.80, years(first[:10]), 'F') + 5:.0f}"),
    ]
    found = _found(pop, labs=(*[r for r in pop.labs if r.patient_id != pid], *rows))
    assert _named(found, f"{pid} lab #90004", "creatinine rose (0.80 to 0.95) and eGFR rose")


def test_catches_a_bmi_systolic_and_a1c_that_do_not_fit(pop: Population) -> None:
    by = {(r.patient_id, r.collected, r.loinc): r for r in pop.labs}
    bmi = next(
        r for r in pop.labs if r.loinc == "39156-5" and (r.patient_id, r.collected, "29463-7") in by
    )
    sbp = next(
        r for r in pop.labs if r.loinc == "8480-6" and (r.patient_id, r.collected, "8462-4") in by
    )
    dbp = by[(sbp.patient_id, sbp.collected, "8462-4")]
    diabetic = {c.patient_id for c in pop.conditions if c.code == "44054006"}
    a1c = next(r for r in pop.labs if r.loinc == "4548-4" and r.patient_id not in diabetic)
    changed = _with(
        pop,
        replace(bmi, value=f"{float(bmi.value) + 3:.1f}"),
        replace(sbp, value=str(int(dbp.value) - 5)),
        replace(a1c, value="7.9"),
    )
    found = _found(pop, labs=changed)
    assert _named(found, f"lab #{bmi.seq}", "BMI")
    assert _named(found, f"lab #{sbp.seq}", "is not above diastolic")
    assert _named(found, f"{a1c.patient_id} lab #{a1c.seq}", "A1c 7.9 in the diabetic range")


def test_catches_red_cell_indices_that_do_not_fit_their_inputs(pop: Population) -> None:
    mcv = next(r for r in pop.labs if r.loinc == "787-2")
    found = _found(pop, labs=_with(pop, replace(mcv, value=f"{float(mcv.value) + 4:.1f}")))
    assert _named(found, f"lab #{mcv.seq}", "MCV")


# -- (d) social history -------------------------------------------------------------------


def _visit_findings(pop: Population) -> tuple[str, list[Condition]]:
    """A patient with smoking findings at two or more visits, and those findings."""
    smoking = {code for code, _ in social_findings.SMOKING.values()}
    rows: dict[str, list[Condition]] = {}
    for c in pop.conditions:
        if c.code in smoking:
            rows.setdefault(c.patient_id, []).append(c)
    pid = next(p for p, found in rows.items() if len(found) >= 2)
    return pid, sorted(rows[pid], key=lambda c: c.onset)


def test_catches_never_smoked_after_a_smoking_history(pop: Population) -> None:
    pid, found = _visit_findings(pop)
    code, text = social_findings.SMOKING["current"]
    first = replace(found[0], code=code, description=text)
    never_code, never_text = social_findings.SMOKING["never"]
    last = replace(found[-1], code=never_code, description=never_text)
    rows = {first.id: first, last.id: last}
    changed = tuple(rows.get(c.id, c) for c in pop.conditions)
    assert _named(
        _found(pop, conditions=changed), f"{pid} problem {last.id}", "'never' after smoking"
    )


def test_catches_two_employment_statuses_at_one_visit(pop: Population) -> None:
    work = next(c for c in pop.conditions if c.code == social_findings.EMPLOYMENT["full"][0])
    code, text = social_findings.EMPLOYMENT["unemployed"]
    other = replace(work, id=99_999, code=code, description=text)
    found = _found(pop, conditions=(*pop.conditions, other))
    assert _named(found, f"{work.patient_id} problem", "a second employment status")


def test_catches_a_former_smoker_who_had_never_smoked(pop: Population) -> None:
    _, found = _visit_findings(pop)
    never = replace(
        found[0],
        code=social_findings.SMOKING["never"][0],
        description=social_findings.SMOKING["never"][1],
    )
    former = replace(
        found[-1],
        code=social_findings.SMOKING["former"][0],
        description=social_findings.SMOKING["former"][1],
    )
    rows = {c.id: replace(c, code=never.code, description=never.description) for c in found}
    rows[former.id] = former
    changed = tuple(rows.get(c.id, c) for c in pop.conditions)
    assert _named(
        _found(pop, conditions=changed), f"problem {former.id}", "no current one before it"
    )


# -- billing and Medi-Cal -----------------------------------------------------------------


def _medi_cal(pop: Population) -> tuple[str, str]:
    """A Medi-Cal member and the date of service of one of their settled visits."""
    members = {c.patient_id for c in pop.insurance if c.kind == "medicaid_mco"}
    settled = next(
        x for x in pop.ledger if x.patient_id in members and x.description.startswith("Insurance")
    )
    return settled.patient_id, settled.service_date


def test_catches_a_medi_cal_member_asked_to_pay(pop: Population) -> None:
    pid, day = _medi_cal(pop)
    copay = LedgerEntry(
        99_999, pid, day, day, "payment", "Patient payment — copay at check-in", -25.0
    )
    found = _found(pop, ledger=(*pop.ledger, copay))
    assert _named(found, f"{pid} ledger service_date {day}", "line 99999 bills the member")
    adjustment = next(
        x
        for x in pop.ledger
        if (x.patient_id, x.service_date) == (pid, day) and x.kind == "adjustment"
    )
    short = replace(adjustment, amount=round(adjustment.amount + 30, 2))
    changed = tuple(short if x.id == short.id else x for x in pop.ledger)
    assert _named(_found(pop, ledger=changed), f"{pid} ledger", "member is left owing 30.00")


def test_catches_medicare_before_65_and_a_copay_on_medi_cal(pop: Population) -> None:
    senior = next(c for c in pop.insurance if c.kind == "medicare_advantage")
    medi_cal = next(c for c in pop.insurance if c.kind == "medicaid_mco")
    dob = pop.patient(senior.patient_id).dob
    early = date.fromisoformat(dob).replace(year=int(dob[:4]) + 60, day=1).isoformat()
    changed = tuple(
        replace(c, effective=early)
        if c.id == senior.id
        else replace(c, copay=20.0)
        if c.id == medi_cal.id
        else c
        for c in pop.insurance
    )
    found = _found(pop, insurance=changed)
    assert _named(found, f"insurance {senior.id}", "a Medicare plan from age 5", "month of 65")
    assert _named(found, f"insurance {medi_cal.id}", "field copay 20.0 on a plan that allows no")


# -- the clinic's day ---------------------------------------------------------------------


def test_catches_appointments_off_the_clinic_grid_and_double_booked(pop: Population) -> None:
    a = next(x for x in pop.appointments if x.status == "scheduled")
    day = a.starts_at[:10]
    lunch = replace(a, starts_at=f"{day}T12:20:00")
    off = replace(a, id="APT-999998", starts_at=f"{day}T09:10:00")
    saturday = date.fromisoformat(day) + timedelta(days=(5 - date.fromisoformat(day).weekday()) % 7)
    weekend = replace(a, id="APT-999997", starts_at=f"{saturday.isoformat()}T10:00:00")
    twin = replace(
        a, id="APT-999996", patient_id="PT-000048" if a.patient_id != "PT-000048" else "PT-000047"
    )
    rest = tuple(x for x in pop.appointments if x.id != a.id)
    found = _found(pop, appointments=(*rest, lunch, off, weekend, a, twin))
    assert _named(found, f"appointment {a.id} starts_at {day}T12:20:00", "not a slot")
    assert _named(found, "appointment APT-999998", "not a slot of the clinic's day")
    assert _named(found, "appointment APT-999997", "on a Saturday")
    assert _named(found, "appointment APT-999996", f"provider {a.provider_id} is booked twice")


# -- messages and medicines ---------------------------------------------------------------


def test_catches_a_message_about_a_visit_after_it_was_sent(pop: Population) -> None:
    m = next(x for x in pop.messages if x.subject.startswith("Checking in"))
    sent = date.fromisoformat(m.sent_at[:10])
    later = (sent + timedelta(days=10)).strftime("%m/%d/%Y")
    bad = replace(m, body=m.body.replace(m.body.split("visit on ")[1][:10], later))
    found = _found(pop, messages=tuple(bad if x.id == m.id else x for x in pop.messages))
    assert _named(found, f"message {m.id}", "after it was sent")


def test_catches_amoxicillin_for_a_penicillin_allergy_and_a_virus(pop: Population) -> None:
    allergy = next(a for a in pop.allergies if a.substance == "Penicillin V")
    course = Medication(
        99_999,
        allergy.patient_id,
        "Amoxicillin 500 MG Oral Capsule",
        "500 mg",
        "Take 1 capsule 3 times daily for 7 days",
        allergy.noted,
        None,
        "PRV-0001",
    )
    viral = Condition(
        99_999,
        allergy.patient_id,
        "195662009",
        "Acute viral pharyngitis (disorder)",
        allergy.noted,
        None,
    )
    found = _found(pop, medications=(*pop.medications, course), conditions=(*pop.conditions, viral))
    assert _named(found, "medication 99999 (Amoxicillin", "allergic to Penicillin V")
    assert _named(
        found, "medication 99999 (Amoxicillin", "an antibiotic for Acute viral pharyngitis"
    )


def test_catches_a_drug_started_before_its_diagnosis(pop: Population) -> None:
    long_term = {drug for c in catalog.CHRONIC for drug, _, _ in c.drugs}
    m = next(x for x in pop.medications if x.drug in long_term)
    early = replace(m, start="2000-01-03")
    found = _found(pop, medications=tuple(early if x.id == m.id else x for x in pop.medications))
    assert _named(found, f"medication {m.id} ({m.drug})", "started before its diagnosis")


# -- text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("", "is empty"),
        (" Oak St", "leading or trailing white space"),
        ("12  Oak St", "doubled space"),
        ("12 {street}", "unfilled placeholder {street}"),
        ("12 None St", "'None' where a value belongs"),
        ("nan", "'nan' where a value belongs"),
    ],
)
def test_catches_a_string_that_is_not_filled_in(pop: Population, value: str, why: str) -> None:
    p = pop.patients[3]
    found = _found(pop, patients=(*pop.patients[:3], replace(p, address=value), *pop.patients[4:]))
    assert _named(found, f"patient {p.id} field address", why)


def test_every_message_subject_and_body_is_linted(pop: Population) -> None:
    m = pop.messages[0]
    bad = replace(m, body=m.body.replace("Hello", "Hello {first}"), subject=m.subject + " ")
    found = _found(pop, messages=(bad, *pop.messages[1:]))
    assert _named(found, f"message {m.id} field body has an unfilled placeholder {{first}}")
    assert _named(found, f"message {m.id} field subject has leading or trailing white space")


def test_the_clinic_day_has_twenty_minute_slots_without_lunch() -> None:
    assert SLOTS[0] == "08:00:00" and SLOTS[-1] == "16:40:00" and len(SLOTS) == 24
    assert not [s for s in SLOTS if s.startswith("12:")]


def test_appointment_times_spread_over_the_day(pop: Population) -> None:
    times = Counter(a.starts_at[11:] for a in pop.appointments)
    assert len(times) >= 20 and max(times.values()) < 0.1 * len(pop.appointments)

"""Everything fits the patient's age on its date: a condition is diagnosed no younger than it
occurs at (knee osteoarthritis from 40), a drug is started no younger than it is given at
(age_limits: aspirin, a statin, apixaban from 18), and a vaccine of an age band is given inside
it (HPV through 26, recombinant zoster from 50, PCV13 from 65)."""

from __future__ import annotations

from datetime import date

from endstate.envs.systems.patient_portal import catalog
from endstate.envs.systems.patient_portal.model import Population
from endstate.envs.world import age_limits, clinical

MIN_AGE = {c.code: c.min_age for c in catalog.CHRONIC}


def _age(dob: str, day: str) -> int:
    return clinical.age(dob, date.fromisoformat(day[:10]))


def problems(pop: Population, today: date) -> list[str]:
    born = {p.id: p.dob for p in pop.patients}
    out: list[str] = []
    for c in pop.conditions:
        years = _age(born[c.patient_id], c.onset)
        if years < MIN_AGE.get(c.code, 0):
            out.append(
                f"{c.patient_id} problem {c.id} ({c.description}) onset {c.onset}: at age "
                f"{years}, younger than it is diagnosed at ({MIN_AGE[c.code]})"
            )
    for m in pop.medications:
        years = _age(born[m.patient_id], m.start)
        why = age_limits.too_young(m.drug, years)
        if why:
            out.append(
                f"{m.patient_id} medication {m.id} ({m.drug}) start {m.start}: at age {years}, "
                f"{why}"
            )
    for v in pop.immunizations:
        band = catalog.VACCINE_AGES.get(v.cvx)
        if band is None:
            continue
        years = _age(born[v.patient_id], v.given)
        youngest, oldest = band
        if years < youngest or (oldest is not None and years > oldest):
            upto = f"to {oldest}" if oldest is not None else "and over"
            out.append(
                f"{v.patient_id} immunization {v.id} ({v.vaccine}) given {v.given}: at age "
                f"{years}, outside its ages ({youngest} {upto})"
            )
    return out

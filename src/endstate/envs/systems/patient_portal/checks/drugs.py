"""Each medicine fits the record around it: no drug the patient is allergic to (nor one its
allergy rules out: a penicillin allergy and amoxicillin), no antibiotic for an illness the
problem list calls viral, and no long-term drug started before the diagnosis it treats."""

from __future__ import annotations

from collections import defaultdict
from datetime import date

from endstate.envs.systems.patient_portal import catalog
from endstate.envs.systems.patient_portal.model import Condition, Medication, Population

TREATS = {drug: c.code for c in catalog.CHRONIC for drug, _, _ in c.drugs}


def _label(m: Medication) -> str:
    return f"{m.patient_id} medication {m.id} ({m.drug}) start {m.start}"


def _allergic(pop: Population) -> list[str]:
    allergies = defaultdict(list)
    for a in pop.allergies:
        allergies[a.patient_id].append(a)
    return [
        f"{_label(m)}: the patient is allergic to {a.substance} (allergy {a.id})"
        for m in pop.medications
        for a in allergies[m.patient_id]
        if catalog.rules_out(a.substance, m.drug) and (m.stop is None or m.stop >= a.noted)
    ]


def _indicated(m: Medication, problems: list[Condition]) -> list[str]:
    out: list[str] = []
    same_day = [c for c in problems if c.onset == m.start]
    if any(w in m.drug.lower() for w in catalog.ANTIBIOTICS):
        viral = [c for c in same_day if "viral" in c.description.lower()]
        if viral:
            out.append(
                f"{_label(m)}: an antibiotic for {viral[0].description} (problem {viral[0].id})"
            )
    code = TREATS.get(m.drug)
    if code is not None:
        onsets = [c.onset for c in problems if c.code == code]
        if not onsets:
            out.append(f"{_label(m)}: nothing on the problem list it treats ({code})")
        elif m.start < min(onsets):
            out.append(f"{_label(m)}: started before its diagnosis ({code}, {min(onsets)})")
    return out


def problems(pop: Population, today: date) -> list[str]:
    by_patient = defaultdict(list)
    for c in pop.conditions:
        by_patient[c.patient_id].append(c)
    out = _allergic(pop)
    for m in pop.medications:
        out += _indicated(m, by_patient[m.patient_id])
    return out

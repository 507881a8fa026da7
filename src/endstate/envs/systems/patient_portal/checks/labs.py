"""Results read as one person's and agree with what a laboratory computes from them.

- eGFR agrees with the creatinine drawn with it (CKD-EPI 2021 at the patient's age and sex,
  within EGFR_TOLERANCE), and the two move in opposite directions over time: a rising
  creatinine never comes with a rising eGFR, and a falling creatinine with a falling eGFR
  only as far as ageing explains;
- BMI is the weight over the height squared; an adult's height stays put;
- MCV, MCH and MCHC are the red cells', haemoglobin's and haematocrit's ratios;
- total cholesterol is LDL + HDL + triglycerides / 5;
- the systolic pressure is above the diastolic;
- no A1c in the diabetic range (6.5 or more) before diabetes is diagnosed; an obesity finding
  has a BMI of 30 or more after it, and no BMI of 30 or more goes without one; a patient with
  chronic kidney disease stage 1 has no eGFR under 90 after its diagnosis.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from itertools import pairwise

from endstate.envs.systems.patient_portal.model import LabResult, Population
from endstate.envs.systems.patient_portal.physiology import (
    AGE_FACTOR,
    CKD1,
    CKD1_EGFR,
    DIABETES,
    DIABETIC_A1C,
    OBESE_BMI,
    OBESITY,
    egfr,
)
from endstate.envs.world import clinical

CREATININE, EGFR = "38483-4", "98979-8"
HEIGHT, WEIGHT, BMI = "8302-2", "29463-7", "39156-5"
RBC, HGB, HCT, MCV, MCH, MCHC = "789-8", "718-7", "4544-3", "787-2", "785-6", "786-4"
TOTAL, TRIGLYCERIDES, LDL, HDL = "2093-3", "2571-8", "18262-6", "2085-9"
DIASTOLIC, SYSTOLIC, A1C = "8462-4", "8480-6", "4548-4"
EGFR_TOLERANCE = 1.5  # mL/min/1.73m2: a whole-number report of a value from a rounded creatinine
RATIO_TOLERANCE = 0.2  # a one-decimal index from one- and two-decimal inputs
HEIGHT_DRIFT = 2.0  # cm an adult's measured height may vary by


Draw = dict[str, LabResult]  # one collection's results by LOINC


def _label(r: LabResult) -> str:
    return f"{r.patient_id} lab #{r.seq} ({r.loinc}) collected {r.collected}"


def _num(r: LabResult) -> float:
    return float(r.value)


def _draws(pop: Population) -> dict[str, list[Draw]]:
    """Each patient's collections, oldest first, each its results by test."""
    by: dict[str, dict[str, Draw]] = defaultdict(dict)
    for r in pop.labs:
        by[r.patient_id].setdefault(r.collected, {})[r.loinc] = r
    return {pid: [d[k] for k in sorted(d)] for pid, d in by.items()}


def _kidney(draws: list[Draw], dob: str, sex: str) -> list[str]:
    out: list[str] = []
    pairs: list[tuple[LabResult, LabResult, int]] = []
    for d in draws:
        if CREATININE in d and EGFR in d:
            cr, gfr = d[CREATININE], d[EGFR]
            years = clinical.age(dob, date.fromisoformat(cr.collected[:10]))
            expected = egfr(_num(cr), years, sex)
            if abs(_num(gfr) - expected) > EGFR_TOLERANCE:
                out.append(
                    f"{_label(gfr)}: eGFR {gfr.value} does not agree with creatinine "
                    f"{cr.value} at age {years} (CKD-EPI 2021 gives {expected:.0f})"
                )
            pairs.append((cr, gfr, years))
    for (cr0, gfr0, age0), (cr1, gfr1, age1) in pairwise(pairs):
        rose, fell = _num(cr1) > _num(cr0), _num(cr1) < _num(cr0)
        if rose and _num(gfr1) > _num(gfr0):
            out.append(
                f"{_label(gfr1)}: creatinine rose ({cr0.value} to {cr1.value}) and eGFR rose "
                f"with it ({gfr0.value} to {gfr1.value})"
            )
        ageing = _num(gfr0) * AGE_FACTOR ** (age1 - age0)
        if fell and _num(gfr1) < ageing - EGFR_TOLERANCE:
            out.append(
                f"{_label(gfr1)}: creatinine fell ({cr0.value} to {cr1.value}) and eGFR fell "
                f"further than ageing explains ({gfr0.value} to {gfr1.value})"
            )
    return out


def _ratio(d: Draw, of: str, value: float, name: str) -> list[str]:
    if of in d and abs(_num(d[of]) - value) > RATIO_TOLERANCE:
        return [f"{_label(d[of])}: {name} {d[of].value} is not {value:.1f} from its inputs"]
    return []


def _computed(d: Draw) -> list[str]:
    """The results of one draw that are computed from others agree with them."""
    out: list[str] = []
    if {HEIGHT, WEIGHT} <= set(d):
        meters = _num(d[HEIGHT]) / 100
        out += _ratio(d, BMI, _num(d[WEIGHT]) / meters**2, "BMI")
    if {RBC, HCT} <= set(d):
        out += _ratio(d, MCV, _num(d[HCT]) * 10 / _num(d[RBC]), "MCV")
    if {RBC, HGB} <= set(d):
        out += _ratio(d, MCH, _num(d[HGB]) * 10 / _num(d[RBC]), "MCH")
    if {HGB, HCT} <= set(d):
        out += _ratio(d, MCHC, _num(d[HGB]) * 100 / _num(d[HCT]), "MCHC")
    if {LDL, HDL, TRIGLYCERIDES} <= set(d):
        whole = _num(d[LDL]) + _num(d[HDL]) + _num(d[TRIGLYCERIDES]) / 5
        out += _ratio(d, TOTAL, whole, "total cholesterol")
    if {SYSTOLIC, DIASTOLIC} <= set(d) and _num(d[SYSTOLIC]) <= _num(d[DIASTOLIC]):
        out.append(
            f"{_label(d[SYSTOLIC])}: systolic {d[SYSTOLIC].value} is not above diastolic "
            f"{d[DIASTOLIC].value}"
        )
    return out


def _since(onsets: dict[str, str], code: str, day: str) -> bool:
    """Whether the problem list has `code` diagnosed by `day`."""
    return code in onsets and onsets[code] <= day


def _diagnoses(draws: list[Draw], onsets: dict[str, str]) -> list[str]:
    """Results agree with the problem list: A1c with diabetes, BMI with obesity, eGFR with
    chronic kidney disease stage 1."""
    out: list[str] = []
    heights = [_num(d[HEIGHT]) for d in draws if HEIGHT in d]
    if heights and max(heights) - min(heights) > HEIGHT_DRIFT:
        first = next(d[HEIGHT] for d in draws if HEIGHT in d)
        out.append(
            f"{_label(first)}: an adult's height varies from {min(heights)} to {max(heights)}"
        )
    for d in draws:
        day = next(iter(d.values())).collected[:10]
        if A1C in d and _num(d[A1C]) >= DIABETIC_A1C and not _since(onsets, DIABETES, day):
            out.append(f"{_label(d[A1C])}: A1c {d[A1C].value} in the diabetic range, no diabetes")
        if BMI in d:
            obese = _since(onsets, OBESITY, day)
            if obese and _num(d[BMI]) < OBESE_BMI:
                out.append(f"{_label(d[BMI])}: BMI {d[BMI].value} under 30 with obesity on record")
            if not obese and _num(d[BMI]) >= OBESE_BMI:
                out.append(f"{_label(d[BMI])}: BMI {d[BMI].value} with no obesity on record")
        if EGFR in d and _since(onsets, CKD1, day) and _num(d[EGFR]) < CKD1_EGFR:
            out.append(f"{_label(d[EGFR])}: eGFR {d[EGFR].value} under 90 with stage 1 CKD")
    return out


def problems(pop: Population, today: date) -> list[str]:
    onsets: dict[str, dict[str, str]] = defaultdict(dict)
    for c in pop.conditions:
        mine = onsets[c.patient_id]
        mine[c.code] = min(mine.get(c.code, c.onset), c.onset)
    out: list[str] = []
    by = _draws(pop)
    for p in pop.patients:
        draws = by.get(p.id, [])
        out += _kidney(draws, p.dob, p.sex)
        out += [line for d in draws for line in _computed(d)]
        out += _diagnoses(draws, onsets[p.id])
    return out

"""One body per patient, so their results read as one person's over the years: a height that
stays put, a weight and a kidney function that drift slowly, an A1c that follows their
diabetes, a blood pressure that follows their hypertension — and every value a laboratory
computes from others computed from them: eGFR from creatinine (CKD-EPI 2021, race-free), BMI
from height and weight, MCV, MCH and MCHC from the red cells, haemoglobin and haematocrit,
total cholesterol from its fractions. Only the tests nothing ties to anything else are drawn
on their own, around their usual spread.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date

from endstate.envs.systems.patient_portal import catalog
from endstate.envs.world import clinical as ages

DIABETES, PREDIABETES = "44054006", "714628002"
HYPERTENSION, OBESITY, CKD1 = "59621000", "162864005", "431855005"
HYPERLIPIDEMIA = "55822004"
DIABETIC_A1C = 6.5  # the diagnostic threshold: no A1c this high before diabetes is diagnosed
OBESE_BMI = 30.0
CKD1_EGFR = 90.0  # stage 1 is kidney damage with an eGFR of 90 or more
AGE_FACTOR = 0.9938  # CKD-EPI 2021: eGFR falls by this factor a year of age

Case = tuple[catalog.Chronic, date]  # a long-term condition and the day it was diagnosed


def egfr(creatinine: float, years: int, sex: str) -> float:
    """CKD-EPI 2021 (race-free) eGFR in mL/min/1.73m2 from serum creatinine in mg/dL."""
    kappa, alpha = (0.7, -0.241) if sex == "F" else (0.9, -0.302)
    ratio = creatinine / kappa
    value = 142 * min(ratio, 1) ** alpha * max(ratio, 1) ** -1.200 * AGE_FACTOR**years
    return float(value * (1.012 if sex == "F" else 1.0))


def creatinine_for(target: float, years: int, sex: str) -> float:
    """The creatinine whose CKD-EPI 2021 eGFR is `target` at this age (its inverse)."""
    kappa, alpha = (0.7, -0.241) if sex == "F" else (0.9, -0.302)
    scale = 142 * AGE_FACTOR**years * (1.012 if sex == "F" else 1.0)
    g = target / scale
    return float(kappa * (g ** (1 / alpha) if g >= 1 else g ** (-1 / 1.200)))


@dataclass(frozen=True)
class Body:
    """What stays the same about a patient, and when their conditions began."""

    sex: str
    dob: str
    start: date
    height: float  # cm
    bmi_lean: float  # before any obesity
    bmi_obese: float
    creatinine: float  # at the first record
    creatinine_trend: float  # its relative rise a year
    rbc: float
    mcv: float
    mchc: float
    ldl: float
    hdl: float
    triglycerides: float
    onsets: dict[str, date]  # condition code -> diagnosis date

    def has(self, code: str, day: date) -> bool:
        return code in self.onsets and self.onsets[code] <= day


def body(rng: random.Random, sex: str, dob: str, start: date, chronic: list[Case]) -> Body:
    """Draw a patient's body once; their results are read off it (`results`)."""
    onsets = {c.code: onset for c, onset in chronic}
    first_age = ages.age(dob, start)
    target = rng.uniform(108, 120) if CKD1 in onsets else rng.uniform(80, 115)
    female = sex == "F"
    return Body(
        sex=sex,
        dob=dob,
        start=start,
        height=rng.gauss(163 if female else 177, 6),
        bmi_lean=rng.uniform(19.5, 28.5),
        bmi_obese=rng.uniform(31.5, 39),
        creatinine=creatinine_for(target, first_age, sex),
        creatinine_trend=0.0 if CKD1 in onsets else rng.uniform(0, 0.01),
        rbc=rng.uniform(4.1, 4.9) if female else rng.uniform(4.6, 5.5),
        mcv=rng.gauss(90, 3),
        mchc=rng.gauss(33.5, 0.5),
        ldl=rng.uniform(150, 185) if HYPERLIPIDEMIA in onsets else rng.uniform(70, 140),
        hdl=rng.uniform(38, 75),
        triglycerides=rng.uniform(70, 220),
        onsets=onsets,
    )


def _clamp(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


def _fmt(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}"


def _generic(rng: random.Random, test: catalog.LabTest) -> str:
    """A value of a test nothing else is computed from, around its usual spread."""
    mid, spread = (test.low + test.high) / 2, (test.high - test.low) / 4
    value = _clamp(rng.gauss(mid, spread), test.low * 0.85, test.high * 1.15)
    return _fmt(value, test.decimals)


def _vitals(b: Body, rng: random.Random, day: date) -> dict[str, str]:
    obese = b.has(OBESITY, day)
    bmi = _clamp(
        (b.bmi_obese if obese else b.bmi_lean) + rng.gauss(0, 0.4),
        *((30.6, 42.0) if obese else (18.5, 29.3)),
    )
    height = round(b.height + rng.gauss(0, 0.3), 1)
    weight = round(bmi * (height / 100) ** 2, 1)
    systolic = _clamp(rng.gauss(142 if b.has(HYPERTENSION, day) else 118, 7), 96, 178)
    diastolic = systolic * rng.uniform(0.58, 0.68)
    return {
        "8302-2": _fmt(height, 1),
        "29463-7": _fmt(weight, 1),
        "39156-5": _fmt(weight / (height / 100) ** 2, 1),
        "8462-4": _fmt(diastolic, 0),
        "8480-6": _fmt(systolic, 0),
    }


def _blood_count(b: Body, rng: random.Random) -> dict[str, str]:
    rbc = round(b.rbc + rng.gauss(0, 0.12), 2)
    hct = round(rbc * (b.mcv + rng.gauss(0, 1)) / 10, 1)
    hgb = round(hct * (b.mchc + rng.gauss(0, 0.3)) / 100, 1)
    return {
        "789-8": _fmt(rbc, 2),
        "718-7": _fmt(hgb, 1),
        "4544-3": _fmt(hct, 1),
        "787-2": _fmt(hct * 10 / rbc, 1),
        "785-6": _fmt(hgb * 10 / rbc, 1),
        "786-4": _fmt(hgb * 100 / hct, 1),
    }


def _chemistry(b: Body, rng: random.Random, day: date) -> dict[str, str]:
    years = (day - b.start).days / 365.25
    creatinine = round(
        b.creatinine * (1 + b.creatinine_trend * years) * (1 + rng.gauss(0, 0.02)), 2
    )
    creatinine = max(creatinine, 0.4)
    diabetic = b.has(DIABETES, day)
    glucose = (
        _clamp(rng.gauss(150, 25), 90, 260) if diabetic else _clamp(rng.gauss(95, 10), 70, 139)
    )
    return {
        "2339-0": _fmt(glucose, 0),
        "38483-4": _fmt(creatinine, 2),
        "98979-8": _fmt(egfr(creatinine, ages.age(b.dob, day), b.sex), 0),
    }


def _lipids(b: Body, rng: random.Random) -> dict[str, str]:
    ldl = round(b.ldl + rng.gauss(0, 8), 1)
    hdl = round(b.hdl + rng.gauss(0, 3), 1)
    tg = round(b.triglycerides * (1 + rng.gauss(0, 0.08)), 1)
    return {
        "2093-3": _fmt(ldl + hdl + tg / 5, 1),  # total = LDL + HDL + VLDL (TG/5)
        "2571-8": _fmt(tg, 1),
        "18262-6": _fmt(ldl, 1),
        "2085-9": _fmt(hdl, 1),
    }


def a1c(b: Body, rng: random.Random, day: date) -> float:
    """Normal, prediabetic or diabetic, by what the patient has been diagnosed with by then."""
    if b.has(DIABETES, day):
        return _clamp(rng.gauss(7.4, 0.6), DIABETIC_A1C + 0.1, 9.6)
    if b.has(PREDIABETES, day) or DIABETES in b.onsets:
        return rng.uniform(5.7, 6.4)  # before diabetes is diagnosed, it is not yet in range
    return _clamp(rng.gauss(5.2, 0.2), 4.6, 5.6)


def results(
    b: Body, rng: random.Random, panel: tuple[catalog.LabTest, ...], day: date
) -> list[tuple[str, str]]:
    """One panel's results on a day, (loinc, value) in the panel's order."""
    computed: dict[str, str] = {}
    codes = {t.loinc for t in panel}
    if "8302-2" in codes:
        computed |= _vitals(b, rng, day)
    if "789-8" in codes:
        computed |= _blood_count(b, rng)
    if "38483-4" in codes:
        computed |= _chemistry(b, rng, day)
    if "2093-3" in codes:
        computed |= _lipids(b, rng)
    if "4548-4" in codes:
        computed["4548-4"] = _fmt(a1c(b, rng, day), 1)
    return [
        (t.loinc, computed[t.loinc] if t.loinc in computed else _generic(rng, t)) for t in panel
    ]

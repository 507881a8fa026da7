"""A patient's clinical record: problems, medications and prescriptions, labs, allergies and
immunizations, drawn the way Synthea's output reads (long lists, mostly historical)."""

from __future__ import annotations

from datetime import date, timedelta

from endstate.envs.systems.patient_portal import catalog
from endstate.envs.systems.patient_portal.history import History
from endstate.envs.systems.patient_portal.model import (
    Allergy,
    Condition,
    Immunization,
    LabResult,
    Medication,
    Prescription,
)

Episode = tuple[catalog.Acute, date]  # an acute problem and its onset


def chronic_problems(h: History) -> list[catalog.Chronic]:
    """0-4 long-term conditions, more of them the older the patient."""
    k = min(4, h.rng.randint(0, 1 + h.age // 25))
    return h.rng.sample(catalog.CHRONIC, k)


def conditions(h: History, chronic: list[catalog.Chronic], acute: list[Episode]) -> list[Condition]:
    """Chronic ones (no end date), acute ones (ended unless recent), then wellness findings
    up to the patient's quota: each closed at the next wellness visit, the last ones open."""
    rows: list[tuple[str, str, str, str | None]] = []
    late = h.today - timedelta(days=60)
    for c in chronic:
        rows.append((h.day(h.start, late).isoformat(), c.code, c.description, None))
    for a, onset in acute:
        end = onset + timedelta(days=h.rng.randint(*a.days))
        rows.append((onset.isoformat(), a.code, a.description, _past(end, h.today)))
    left = max(0, h.quota.problems - len(rows))
    visits = h.wellness or [h.start]
    for i, visit in enumerate(visits):
        share = left // (len(visits) - i) if i < len(visits) - 1 else left
        picked = h.rng.sample(catalog.FINDINGS, min(share, len(catalog.FINDINGS)))
        left -= len(picked)
        closed = visits[i + 1].isoformat() if i + 1 < len(visits) else None
        rows += [(visit.isoformat(), code, text, closed) for code, text in picked]
    rows.sort(key=lambda r: r[0])
    pid = h.patient.id
    return [Condition(h.ids.next("conditions"), pid, c, d, o, e) for o, c, d, e in rows]


def _past(day: date, today: date) -> str | None:
    return day.isoformat() if day <= today else None


def acute_episodes(h: History) -> list[Episode]:
    count = h.rng.randint(1, 8)
    out = [(h.rng.choice(catalog.ACUTE), h.day(h.start, h.today)) for _ in range(count)]
    return sorted(out, key=lambda e: e[1])


def medications(
    h: History, chronic: list[catalog.Chronic], acute: list[Episode]
) -> tuple[list[Medication], list[Prescription]]:
    """Every course ever taken (lifetime rows) and, for each still taken, its current
    prescription: the renewal date, not the first start, under the same header."""
    rows: list[tuple[str, str, str, str, str | None, str]] = []
    for c in chronic:
        prescriber = h.provider_for(c.specialty)
        for drug, dosage, directions in c.drugs:
            first = h.day(h.start, h.today - timedelta(days=90))
            rows += _courses(h, first, prescriber, drug, dosage, directions)
    for a, onset in acute:
        for drug, dosage, directions in a.drugs:
            stop = onset + timedelta(days=h.rng.randint(5, 14))
            end = _past(stop, h.today) if h.quota.medicated else min(stop, h.today).isoformat()
            rows.append((onset.isoformat(), drug, dosage, directions, end, h.patient.pcp_id))
    rows.sort(key=lambda r: (r[0], r[1]))
    meds = [
        Medication(h.ids.next("medications"), h.patient.id, d, dose, how, s, e, who)
        for s, d, dose, how, e, who in rows
    ]
    scripts = [
        Prescription(
            h.ids.next("prescriptions"),
            h.patient.id,
            m.id,
            m.drug,
            m.dosage,
            m.directions,
            max(
                date.fromisoformat(m.start), h.today - timedelta(days=h.rng.randint(7, 330))
            ).isoformat(),
            m.prescriber_id,
            h.rng.randint(0, 5),
        )
        for m in meds
        if m.stop is None
    ]
    return meds, scripts


def _courses(
    h: History, first: date, prescriber: str, drug: str, dosage: str, directions: str
) -> list[tuple[str, str, str, str, str | None, str]]:
    """Back-to-back courses of one long-term drug: the last one open if still taken."""
    out: list[tuple[str, str, str, str, str | None, str]] = []
    start = first
    while True:
        stop = start + timedelta(days=h.rng.randint(180, 900))
        if stop >= h.today:
            end = None if h.quota.medicated else h.day(start, h.today).isoformat()
            out.append((start.isoformat(), drug, dosage, directions, end, prescriber))
            return out
        out.append((start.isoformat(), drug, dosage, directions, stop.isoformat(), prescriber))
        start = stop + timedelta(days=1)


def _value(h: History, test: catalog.LabTest) -> str:
    mid, spread = (test.low + test.high) / 2, (test.high - test.low) / 4
    value = min(max(h.rng.gauss(mid, spread), test.low * 0.7), test.high * 1.3)
    return f"{value:.{test.decimals}f}"


def _draw(h: History) -> list[tuple[str, str]]:
    """One lab visit's results: a few panels, (loinc, value) each."""
    out: list[tuple[str, str]] = []
    while not out:
        for panel, chance in zip(catalog.PANELS, (0.7, 0.5, 0.6, 0.3, 0.35), strict=True):
            if h.rng.random() < chance:
                out += [(t.loinc, _value(h, t)) for t in panel]
        if h.rng.random() < 0.2:
            out += [(code, h.rng.choice(values)) for code, _, _, values in catalog.URINE]
    return out


def labs(h: History) -> list[LabResult]:
    """Exactly the quota's rows, oldest first; most carry no time of day (00:00:00)."""
    rows: list[tuple[str, int, tuple[str, str]]] = []
    visit = 0
    while len(rows) < h.quota.labs:
        day = h.day(h.start, h.today - timedelta(days=1))
        if h.rng.random() < 0.7:
            at = f"{day.isoformat()}T00:00:00"
        else:
            at = f"{day.isoformat()}T{h.rng.randint(7, 17):02d}:{h.rng.randint(0, 59):02d}:00"
        visit += 1
        rows += [(at, visit, r) for r in _draw(h)]
    rows = sorted(rows[: h.quota.labs], key=lambda r: (r[0], r[1]))
    return [
        LabResult(h.patient.id, seq, at, loinc, value)
        for seq, (at, _, (loinc, value)) in enumerate(rows, 1)
    ]


def allergies(h: History) -> list[Allergy]:
    if not h.quota.allergic:
        return []
    picked = h.rng.sample(catalog.ALLERGENS, h.rng.randint(1, 4))
    return [
        Allergy(
            h.ids.next("allergies"),
            h.patient.id,
            substance,
            reaction,
            h.rng.choice(catalog.SEVERITIES),
            h.day(h.start, h.today).isoformat(),
        )
        for substance, reaction in picked
    ]


def _doses(h: History) -> list[tuple[str, date]]:
    """Which vaccines, when: yearly flu shots in some autumns, Td every ten years, …"""
    out: list[tuple[str, date]] = []
    for year in range(h.start.year, h.today.year + 1):
        autumn = date(year, 9, 15) + timedelta(days=h.rng.randint(0, 60))
        if h.start <= autumn <= h.today and h.rng.random() < 0.6:
            out.append(("140", autumn))
    td = h.day(h.start, h.today)
    out.append(("113", td))
    if td + timedelta(days=3650) < h.today:
        out.append(("115", td + timedelta(days=3650)))
    covid = date(2021, 3, 1)
    if h.start <= covid and h.rng.random() < 0.8:
        out += [("208", covid + timedelta(days=d + h.rng.randint(0, 20))) for d in (0, 28, 240)]
    if h.age >= 50 and h.rng.random() < 0.6:
        out.append(("187", h.day(max(h.start, h.today - timedelta(days=1500)), h.today)))
    if h.age >= 65:
        out.append(("133", h.day(max(h.start, h.today - timedelta(days=2000)), h.today)))
    if h.age < 30:
        out.append(("62", h.day(h.start, h.today)))
    if h.rng.random() < 0.3:
        out.append(("43", h.day(h.start, h.today)))
    return sorted(out, key=lambda d: d[1])


def immunizations(h: History) -> list[Immunization]:
    names = dict(catalog.VACCINES)
    return [
        Immunization(h.ids.next("immunizations"), h.patient.id, cvx, names[cvx], day.isoformat())
        for cvx, day in _doses(h)
        if day <= h.today
    ]

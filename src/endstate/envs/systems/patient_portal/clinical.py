"""A patient's problems, medications and prescriptions and allergies, drawn the way Synthea's
output reads (long lists, mostly historical) and holding together as one person's: each
condition diagnosed at an age it occurs at, each drug started after what it treats, no drug
the patient is allergic to. Labs are in labs.py, vaccines in vaccines.py, imaging in
imaging.py."""

from __future__ import annotations

from datetime import date, timedelta

from endstate.envs.systems.patient_portal import catalog, physiology, social
from endstate.envs.systems.patient_portal.clinic import previous_weekday
from endstate.envs.systems.patient_portal.history import History
from endstate.envs.systems.patient_portal.model import (
    Allergy,
    Condition,
    Medication,
    Prescription,
)

Episode = tuple[catalog.Acute, date]  # an acute problem and its onset
Case = physiology.Case  # a long-term condition and the day it was diagnosed


def _age(h: History, day: date) -> int:
    dob = date.fromisoformat(h.patient.dob)
    return day.year - dob.year - ((day.month, day.day) < (dob.month, dob.day))


def earliest_of(h: History, c: catalog.Chronic) -> date:
    """The first day a condition may be diagnosed for this patient: from their first record,
    and not before the youngest age it is diagnosed at."""
    dob = date.fromisoformat(h.patient.dob)
    return max(h.start, dob.replace(year=dob.year + c.min_age, day=min(dob.day, 28)))


def chronic_problems(h: History) -> list[Case]:
    """0-4 long-term conditions, more of them the older the patient, each diagnosed at an age
    it is diagnosed at; one that a later diagnosis closes (prediabetes, before diabetes) comes
    at least six months before it."""
    k = min(4, h.rng.randint(0, 1 + h.age // 25))
    late = h.today - timedelta(days=60)
    found: dict[str, Case] = {}
    for c in h.rng.sample(catalog.CHRONIC, k):
        if earliest_of(h, c) < late:
            found[c.code] = (c, h.day(earliest_of(h, c), late))
    for c, onset in list(found.values()):
        for code in c.ends:
            if code in found:
                before = found.pop(code)[0]
                latest = onset - timedelta(days=180)
                if earliest_of(h, before) <= latest:
                    found[code] = (before, h.day(earliest_of(h, before), latest))
    return sorted(found.values(), key=lambda x: (x[1], x[0].code))


def conditions(
    h: History, chronic: list[Case], acute: list[Episode], life: social.SocialHistory
) -> list[Condition]:
    """Chronic ones (open, unless a later diagnosis closed them), acute ones (ended unless
    recent), then findings of the patient's social history up to their quota: each recorded
    at a wellness visit and closed at the next one, the last ones open."""
    rows: list[tuple[str, str, str, str | None]] = []
    for c, onset in chronic:
        ended = [o for d, o in chronic if c.code in d.ends and o > onset]
        rows.append(
            (onset.isoformat(), c.code, c.description, min(ended).isoformat() if ended else None)
        )
    for a, onset in acute:
        over = onset + timedelta(days=h.rng.randint(*a.days))
        rows.append((onset.isoformat(), a.code, a.description, _past(over, h.today)))
    left = max(0, h.quota.problems - len(rows))
    visits = h.wellness or [h.start]
    for i, visit in enumerate(visits):
        share = left // (len(visits) - i) if i < len(visits) - 1 else left
        true = life.findings(visit)
        picked = [true[k] for k in sorted(h.rng.sample(range(len(true)), min(share, len(true))))]
        left -= len(picked)
        until = visits[i + 1].isoformat() if i + 1 < len(visits) else None
        rows += [(visit.isoformat(), code, text, until) for code, text in picked]
    rows.sort(key=lambda r: r[0])
    pid = h.patient.id
    return [Condition(h.ids.next("conditions"), pid, c, d, o, e) for o, c, d, e in rows]


def _past(day: date, today: date) -> str | None:
    return day.isoformat() if day <= today else None


def acute_episodes(h: History) -> list[Episode]:
    """1-8 acute problems, each diagnosed at a clinic visit on a weekday before today, no two
    on one day."""
    count = h.rng.randint(1, 8)
    yesterday = h.today - timedelta(days=1)
    out: dict[date, catalog.Acute] = {}
    for _ in range(count):
        out[previous_weekday(h.day(h.start, yesterday))] = h.rng.choice(catalog.ACUTE)
    return sorted(((a, d) for d, a in out.items()), key=lambda e: e[1])


def medications(
    h: History, chronic: list[Case], acute: list[Episode]
) -> tuple[list[Medication], list[Prescription]]:
    """Every course ever taken (lifetime rows) and, for each still taken, its current
    prescription: the renewal date, not the first start, under the same header. A long-term
    drug starts at or after the diagnosis it treats, an acute course on its episode's day."""
    rows: list[tuple[str, str, str, str, str | None, str]] = []
    for c, onset in chronic:
        prescriber = h.provider_for(c.specialty)
        for drug, dosage, directions in c.drugs:
            first = h.day(onset, min(onset + timedelta(days=180), h.today - timedelta(days=30)))
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


def allergies(h: History, meds: list[Medication]) -> list[Allergy]:
    """1-4 allergies for half the patients, none to anything they were ever given."""
    if not h.quota.allergic:
        return []
    taken = {m.drug for m in meds}
    fits = [a for a in catalog.ALLERGENS if not any(catalog.rules_out(a[0], d) for d in taken)]
    picked = h.rng.sample(fits, min(len(fits), h.rng.randint(1, 4)))
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

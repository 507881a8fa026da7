"""The scheduling service's directory: patients (look-alikes among them), providers,
locations and open slots, a pure function of (seed, clock) like the rest of the world.

Look-alikes come in the three kinds a front desk confuses: the same full name with another
date of birth, a first name one letter away, a surname one letter away. Every patient of a
pair is listed, so finding a patient by name alone is never enough for them; the pairs are
named (`Directory.lookalikes`) so a case can tell which patients have a double. Open slots
fall as a clinic's day does (`clinic_day`).
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import astuple, dataclass, replace
from datetime import date, datetime, timedelta
from typing import Literal

from endstate.envs.systems.scheduling.clinic_day import openings, visit_minutes
from endstate.envs.world.names import LOOKALIKE_FIRST, LOOKALIKE_LAST, person

SPECIALTIES = ("Family Medicine", "Cardiology", "Dermatology", "Endocrinology", "Orthopedics")
LOCATIONS = (("LOC-MAIN", "Mercyvale Main Campus"), ("LOC-EAST", "Mercyvale East Clinic"))
DAYS = 10  # business days of slots from the day after the clock


@dataclass(frozen=True)
class SchedPatient:
    id: str
    first: str
    last: str
    dob: str
    phone: str
    mrn: str


@dataclass(frozen=True)
class SchedProvider:
    id: str
    name: str
    specialty: str


@dataclass(frozen=True)
class Slot:
    id: str
    provider_id: str
    location_id: str
    starts_at: str
    minutes: int


LookAlikeKind = Literal["same_name", "first_name", "last_name"]


@dataclass(frozen=True)
class LookAlike:
    """Two patients a front desk confuses, and how their names differ."""

    a: SchedPatient
    b: SchedPatient
    kind: LookAlikeKind
    sex: str  # "F" or "M": how a caller would be addressed (Ms./Mr.)


@dataclass(frozen=True)
class Directory:
    patients: tuple[SchedPatient, ...]
    providers: tuple[SchedProvider, ...]
    slots: tuple[Slot, ...]
    lookalikes: tuple[LookAlike, ...]
    locations: tuple[tuple[str, str], ...] = LOCATIONS  # (id, name)

    @property
    def plain(self) -> tuple[SchedPatient, ...]:
        """The patients who have no look-alike pair."""
        doubled = {p.id for pair in self.lookalikes for p in (pair.a, pair.b)}
        return tuple(p for p in self.patients if p.id not in doubled)


def _dob(rng: random.Random) -> str:
    return (date(1940, 1, 1) + timedelta(days=rng.randrange(0, 365 * 62))).isoformat()


PLAIN = 24  # patients before the look-alike pairs


def _names(rng: random.Random) -> tuple[list[tuple[str, str]], list[tuple[LookAlikeKind, str]]]:
    """Plain patients, then the look-alike pairs (each pair adjacent), and each pair's kind
    and sex in order."""
    names = [person(rng)[:2] for _ in range(PLAIN)]
    first, last, sex = person(rng)
    names += [(first, last), (first, last)]  # same full name, another date of birth
    pairs: list[tuple[LookAlikeKind, str]] = [("same_name", sex)]
    for first_a, first_b, sex in LOOKALIKE_FIRST[:3]:
        last = person(rng)[1]
        names += [(first_a, last), (first_b, last)]
        pairs.append(("first_name", sex))
    for last_a, last_b in LOOKALIKE_LAST[:3]:
        first, _, sex = person(rng)
        names += [(first, last_a), (first, last_b)]
        pairs.append(("last_name", sex))
    return names, pairs


def _apart(patients: tuple[SchedPatient, ...], pairs: int) -> tuple[SchedPatient, ...]:
    """A pair's second patient born about a year later when the draw gave both one birth
    date: the date of birth is what tells a pair apart."""
    out = list(patients)
    for k in range(pairs):
        a, b = out[PLAIN + 2 * k], out[PLAIN + 2 * k + 1]
        if a.dob == b.dob:
            later = date.fromisoformat(b.dob) + timedelta(days=366)
            out[PLAIN + 2 * k + 1] = replace(b, dob=later.isoformat())
    return tuple(out)


def _slots(seed: int, clock: str, providers: tuple[SchedProvider, ...]) -> tuple[Slot, ...]:
    """Each provider's openings on the business days after the clock (its own random source,
    so the people drawn before are the same whatever the slots)."""
    rng = random.Random(f"scheduling-slots:{seed}")
    days: list[date] = []
    day = datetime.fromisoformat(clock).date()
    while len(days) < DAYS:
        day += timedelta(days=1)
        if day.weekday() < 5:
            days.append(day)
    out: list[Slot] = []
    for i, p in enumerate(providers):
        minutes = visit_minutes(rng)
        for j, d in enumerate(days):
            out += [
                Slot(
                    id=f"SL-{p.id}-{d:%m%d}-{t.replace(':', '')}",
                    provider_id=p.id,
                    location_id=LOCATIONS[(i + j) % len(LOCATIONS)][0],
                    starts_at=f"{d.isoformat()}T{t}",
                    minutes=minutes,
                )
                for t in openings(rng, minutes)
            ]
    return tuple(out)


def directory(seed: int, clock: str) -> Directory:
    rng = random.Random(f"scheduling:{seed}")
    names, kinds = _names(rng)
    patients = tuple(
        SchedPatient(
            id=f"SP{i + 1:04d}",
            first=first,
            last=last,
            dob=_dob(rng),
            phone=f"555-{rng.randrange(200, 999)}-{rng.randrange(1000, 9999)}",
            mrn=f"M{seed % 1000:03d}{i + 1:05d}",
        )
        for i, (first, last) in enumerate(names)
    )
    patients = _apart(patients, len(kinds))
    lookalikes = tuple(
        LookAlike(patients[PLAIN + 2 * k], patients[PLAIN + 2 * k + 1], kind, sex)
        for k, (kind, sex) in enumerate(kinds)
    )
    providers = tuple(
        SchedProvider(id=f"PR{i + 1:02d}", name=f"Dr. {first} {last}", specialty=specialty)
        for i, ((first, last, _), specialty) in enumerate(
            (person(rng), SPECIALTIES[i % len(SPECIALTIES)]) for i in range(8)
        )
    )
    return Directory(patients, providers, _slots(seed, clock, providers), lookalikes)


def seed_directory(conn: sqlite3.Connection, seed: int, clock: str) -> None:
    """The directory and the default settings, into tables made from schema.DDL."""
    found = directory(seed, clock)
    conn.executemany(
        "INSERT INTO sc_patients VALUES (?, ?, ?, ?, ?, ?)", [astuple(p) for p in found.patients]
    )
    conn.executemany(
        "INSERT INTO sc_providers VALUES (?, ?, ?)", [astuple(p) for p in found.providers]
    )
    conn.executemany("INSERT INTO sc_locations VALUES (?, ?)", found.locations)
    conn.executemany(
        "INSERT INTO sc_slots VALUES (?, ?, ?, ?, ?)", [astuple(s) for s in found.slots]
    )
    conn.executemany(
        "INSERT INTO sc_settings (key, value) VALUES (?, ?)",
        [
            ("now", clock),
            ("step_seconds", "60"),
            ("lease_minutes", "15"),
            ("connector", "ok"),
            ("connector_timeouts", "0"),
        ],
    )

"""The scheduling service's directory: patients (look-alikes among them), providers,
locations and open slots, a pure function of (seed, clock) like the rest of the world.

Look-alikes come in the three kinds a front desk confuses: the same full name with another
date of birth, a first name one letter away, a surname one letter away. Every patient of a
pair is listed, so finding a patient by name alone is never enough for them.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import astuple, dataclass
from datetime import date, datetime, timedelta

from endstate.envs.names import LOOKALIKE_FIRST, LOOKALIKE_LAST, person

SPECIALTIES = ("Family Medicine", "Cardiology", "Dermatology", "Endocrinology", "Orthopedics")
LOCATIONS = (("LOC-MAIN", "Mercyvale Main Campus"), ("LOC-EAST", "Mercyvale East Clinic"))
SLOT_TIMES = ("09:00", "10:30", "13:00", "14:30")
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


@dataclass(frozen=True)
class Directory:
    patients: tuple[SchedPatient, ...]
    providers: tuple[SchedProvider, ...]
    slots: tuple[Slot, ...]


def _dob(rng: random.Random) -> str:
    return (date(1940, 1, 1) + timedelta(days=rng.randrange(0, 365 * 62))).isoformat()


def _names(rng: random.Random) -> list[tuple[str, str]]:
    """Plain patients, then the look-alike pairs (each pair adjacent)."""
    names = [person(rng)[:2] for _ in range(24)]
    twin = person(rng)[:2]
    names += [twin, twin]  # same full name, another date of birth
    for first_a, first_b, _sex in LOOKALIKE_FIRST[:3]:
        last = person(rng)[1]
        names += [(first_a, last), (first_b, last)]
    for last_a, last_b in LOOKALIKE_LAST[:3]:
        first = person(rng)[0]
        names += [(first, last_a), (first, last_b)]
    return names


def directory(seed: int, clock: str) -> Directory:
    rng = random.Random(f"scheduling:{seed}")
    patients = tuple(
        SchedPatient(
            id=f"SP{i + 1:04d}",
            first=first,
            last=last,
            dob=_dob(rng),
            phone=f"555-{rng.randrange(200, 999)}-{rng.randrange(1000, 9999)}",
            mrn=f"M{seed % 1000:03d}{i + 1:05d}",
        )
        for i, (first, last) in enumerate(_names(rng))
    )
    providers = tuple(
        SchedProvider(id=f"PR{i + 1:02d}", name=f"Dr. {first} {last}", specialty=specialty)
        for i, ((first, last, _), specialty) in enumerate(
            (person(rng), SPECIALTIES[i % len(SPECIALTIES)]) for i in range(8)
        )
    )
    start = datetime.fromisoformat(clock).date()
    days: list[date] = []
    day = start
    while len(days) < DAYS:
        day += timedelta(days=1)
        if day.weekday() < 5:
            days.append(day)
    slots = tuple(
        Slot(
            id=f"SL-{p.id}-{d:%m%d}-{t.replace(':', '')}",
            provider_id=p.id,
            location_id=LOCATIONS[(i + j) % len(LOCATIONS)][0],
            starts_at=f"{d.isoformat()}T{t}",
            minutes=30,
        )
        for i, p in enumerate(providers)
        for j, d in enumerate(days)
        for t in SLOT_TIMES
    )
    return Directory(patients, providers, slots)


def seed_directory(conn: sqlite3.Connection, seed: int, clock: str) -> None:
    """The directory and the default settings, into tables made from schema.DDL."""
    found = directory(seed, clock)
    conn.executemany(
        "INSERT INTO sc_patients VALUES (?, ?, ?, ?, ?, ?)", [astuple(p) for p in found.patients]
    )
    conn.executemany(
        "INSERT INTO sc_providers VALUES (?, ?, ?)", [astuple(p) for p in found.providers]
    )
    conn.executemany("INSERT INTO sc_locations VALUES (?, ?)", LOCATIONS)
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

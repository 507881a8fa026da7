"""The practice's people: ~160 providers (with deliberate look-alike names, as a long
recipient dropdown has), a pharmacy directory, and the patients with their portal accounts."""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

from endstate.envs.systems.patient_portal import catalog
from endstate.envs.systems.patient_portal.model import Patient, Pharmacy, Provider
from endstate.envs.world import names, npi_check_digit

FEMALE = (*names.FEMALE, *catalog.EXTRA_FEMALE)
MALE = (*names.MALE, *catalog.EXTRA_MALE)
SURNAMES = (*names.SURNAMES, *catalog.EXTRA_SURNAMES)


class Names:
    """Draws people's names, never the same full name twice."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[tuple[str, str]] = set()

    def take(self, first: str, last: str) -> bool:
        if (first, last) in self.used:
            return False
        self.used.add((first, last))
        return True

    def draw(self, sex: str | None = None) -> tuple[str, str, str]:
        while True:
            s = sex or self.rng.choice("FM")
            first = self.rng.choice(FEMALE if s == "F" else MALE)
            last = self.rng.choice(SURNAMES)
            if self.take(first, last):
                return first, last, s


def _npi(rng: random.Random, used: set[str]) -> str:
    while True:
        first9 = "1" + "".join(rng.choice("0123456789") for _ in range(8))
        npi = first9 + npi_check_digit(first9)
        if npi not in used:
            used.add(npi)
            return npi


def _credential(rng: random.Random, specialty: str) -> str:
    if specialty in catalog.CREDENTIALS:
        return rng.choice(catalog.CREDENTIALS[specialty])
    if specialty in catalog.PRIMARY_CARE or specialty == "Pediatrics":
        return rng.choice(catalog.PRIMARY_CREDENTIALS)
    return rng.choice(catalog.SPECIALIST_CREDENTIALS)


def _lookalike_names(rng: random.Random, people: Names) -> list[tuple[str, str]]:
    """Pairs a hurried reader confuses: Sara/Sarah Reid, Mark Thompson/Thomson, …"""
    out: list[tuple[str, str]] = []
    for a, b, _ in names.LOOKALIKE_FIRST:
        last = rng.choice(SURNAMES)
        if people.take(a, last) and people.take(b, last):
            out += [(a, last), (b, last)]
    for a, b in names.LOOKALIKE_LAST:
        first = rng.choice(FEMALE + MALE)
        if people.take(first, a) and people.take(first, b):
            out += [(first, a), (first, b)]
    return out


def providers(rng: random.Random, people: Names) -> tuple[Provider, ...]:
    """Every specialty's providers, in specialty order; the look-alikes at random places."""
    specialties = [s for s, count in catalog.SPECIALTIES for _ in range(count)]
    pairs = _lookalike_names(rng, people)
    slots = rng.sample(range(len(specialties)), len(pairs))
    named = dict(zip(slots, pairs, strict=True))
    lines = {s: i for i, (s, _) in enumerate(catalog.SPECIALTIES)}
    used: set[str] = set()
    out: list[Provider] = []
    for i, specialty in enumerate(specialties):
        first, last = named[i] if i in named else people.draw()[:2]
        out.append(
            Provider(
                id=f"PRV-{i + 1:04d}",
                npi=_npi(rng, used),
                first=first,
                last=last,
                credential=_credential(rng, specialty),
                specialty=specialty,
                phone=f"(831) 555-{100 + lines[specialty]:04d}",  # the specialty's desk
            )
        )
    return tuple(out)


def pharmacies() -> tuple[Pharmacy, ...]:
    return tuple(
        Pharmacy(f"RX-{i:02d}", name, address)
        for i, (name, address) in enumerate(catalog.PHARMACIES, 1)
    )


def _password(rng: random.Random) -> str:
    return f"{rng.choice(catalog.PASSWORD_WORDS)}{rng.randint(1000, 9999)}!"


def patients(
    rng: random.Random,
    people: Names,
    count: int,
    staff: tuple[Provider, ...],
    stores: tuple[Pharmacy, ...],
    today: date,
) -> tuple[Patient, ...]:
    """Adults of every age, each with a portal account, a PCP and a preferred pharmacy."""
    pcps = [p for p in staff if p.specialty in catalog.PRIMARY_CARE]
    usernames: set[str] = set()
    out: list[Patient] = []
    for i in range(count):
        first, last, sex = people.draw()
        dob = today - timedelta(days=rng.randint(19 * 365, 88 * 365))
        stem = re.sub(r"[^a-z]", "", (first[0] + last).lower())
        username = ""
        while not username or username in usernames:
            username = f"{stem}{rng.randint(10, 99)}"
        usernames.add(username)
        out.append(
            Patient(
                id=f"PT-{i + 1:06d}",
                first=first,
                last=last,
                sex=sex,
                dob=dob.isoformat(),
                phone=f"({rng.choice(('831', '408', '650'))}) 555-{rng.randint(100, 199):04d}",
                email=f"{username}@example.com",
                address=(
                    f"{rng.randint(10, 9899)} {rng.choice(catalog.STREETS)}, Mercyvale, CA "
                    f"950{rng.randint(10, 16)}"
                ),
                username=username,
                password=_password(rng),
                pcp_id=rng.choice(pcps).id,
                pharmacy_id=rng.choice(stores).id,
            )
        )
    return tuple(out)

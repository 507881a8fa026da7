"""The portal's patient population, in the spirit of Synthea: a pure function of the world's
seed and pinned clock, drawn with its own rng (`patient_portal:<seed>`) so the world's
records, its JSON and every corpus generated from it stay byte-identical.

The shape is decided before any chart is drawn, so the hard pages always have their cases:
one patient with 4,105 lab rows and one with 29, a problem list of about 200 rows, half the
patients with no allergies, a fifth kept off every current medication (with those who
never needed one, about half the patients have an empty Prescriptions page).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from typing import TypeVar

from endstate.envs.systems.patient_portal import (
    catalog,
    checks,
    clinical,
    imaging,
    inbox,
    insurance,
    labs,
    people,
    physiology,
    social,
    vaccines,
    visits,
)
from endstate.envs.systems.patient_portal.clinic import Calendar
from endstate.envs.systems.patient_portal.history import History, Ids, Quota
from endstate.envs.systems.patient_portal.model import (
    Chart,
    Insurance,
    LabTest,
    Patient,
    Population,
    Provider,
)
from endstate.envs.world import World, generate_world

T = TypeVar("T")
PATIENTS = 48
LAB_ROWS = (29, 4105)  # fewest and most lab rows a patient has
BIG_LABS = (4105, 1500, 700)  # a few long histories; the rest 29-300
BIG_PROBLEMS = (204, 151)  # the longest problem lists
RICH_FINDINGS = 7  # findings a visit above which a patient's social history is a rich one


def seeded_rng(seed: int) -> random.Random:
    """The portal's own rng: never the world's, whose draws the corpus depends on."""
    return random.Random(f"patient_portal:{seed}")


def _quotas(rng: random.Random, histories: list[int]) -> list[Quota]:
    """Per patient: lab rows, problem rows, allergic or not, anything current or not.

    `histories` are the patients' wellness-visit counts: the longest lists go to patients
    with long histories, so 200 problems are spread over many visits as Synthea's are."""
    n = len(histories)
    long_ones = sorted(range(n), key=lambda i: (-histories[i], i))[: len(BIG_LABS)]
    rng.shuffle(long_ones)
    labs = [min(LAB_ROWS[0] + int(rng.expovariate(1 / 50)), 300) for _ in range(n)]
    labs[rng.randrange(n)] = LAB_ROWS[0]
    for i, rows in zip(long_ones, BIG_LABS, strict=True):
        labs[i] = rows
    problems = [rng.randint(4, 45) for _ in range(n)]
    for i, rows in zip(long_ones, BIG_PROBLEMS, strict=False):
        problems[i] = rows
    allergic = set(rng.sample(range(n), n // 2))
    unmedicated = set(rng.sample(range(n), n // 5))
    return [Quota(labs[i], problems[i], i in allergic, i not in unmedicated) for i in range(n)]


def _team(h: History, chronic: list[clinical.Case], staff: tuple[Provider, ...]) -> None:
    """The PCP, a specialist per chronic problem, and now and then one more."""
    specialties = [c.specialty for c, _ in chronic]
    if h.rng.random() < 0.5:
        specialties.append(h.rng.choice(("Dermatology", "Ophthalmology", "Physical Therapy")))
    for specialty in specialties:
        if specialty not in h.team and specialty not in catalog.PRIMARY_CARE:
            h.team[specialty] = h.rng.choice([p for p in staff if p.specialty == specialty]).id


def _rich(h: History, chronic: list[clinical.Case], acute: list[clinical.Episode]) -> bool:
    """Whether the quota asks for many findings a visit (the longest problem lists)."""
    left = h.quota.problems - len(chronic) - len(acute)
    return left > RICH_FINDINGS * max(1, len(h.wellness))


def _chart(h: History, staff: tuple[Provider, ...], cover: list[Insurance]) -> Chart:
    chronic = clinical.chronic_problems(h)
    _team(h, chronic, staff)
    acute = clinical.acute_episodes(h)
    meds, scripts = clinical.medications(h, chronic, acute)
    seen = visits.encounters(h, chronic, acute)
    booked = visits.appointments(h, seen)
    by_id = {p.id: p for p in staff}
    pharmacy = next(s for s in people.pharmacies() if s.id == h.patient.pharmacy_id)
    life = social.history(h, _rich(h, chronic, acute))
    body = physiology.body(h.rng, h.patient.sex, h.patient.dob, h.start, chronic)
    results = labs.labs(h, body)
    drawn = sorted({r.collected[:10] for r in results})
    return Chart(
        conditions=clinical.conditions(h, chronic, acute, life),
        medications=meds,
        prescriptions=scripts,
        labs=results,
        imaging=imaging.imaging(h, chronic, acute),
        allergies=clinical.allergies(h, meds),
        immunizations=vaccines.immunizations(h),
        encounters=seen,
        appointments=booked,
        ledger=visits.ledger(h, seen, cover),
        messages=inbox.messages(h, seen, meds, booked, by_id, pharmacy, drawn),
    )


def generate(seed: int, clock: str) -> Population:
    """The whole population (uncached: `population` is the cached one)."""
    rng = seeded_rng(seed)
    today = datetime.fromisoformat(clock).date()
    names = people.Names(rng)
    staff = people.providers(rng, names)
    stores = people.pharmacies()
    patients = people.patients(rng, names, PATIENTS, staff, stores, today)
    plans = generate_world(seed, clock).plans  # the world's own plans, by id, name and kind
    cover = insurance.coverages(insurance.seeded_rng(seed), patients, plans, today)
    ids, calendar = Ids(), Calendar()
    drafts = [History(rng, p, Quota(0, 0, False, False), today, ids, calendar) for p in patients]
    for h in drafts:
        h.wellness = visits.wellness_dates(h)
    quotas = _quotas(rng, [len(h.wellness) for h in drafts])
    charts = []
    for h, quota in zip(drafts, quotas, strict=True):
        h.quota = quota
        charts.append(_chart(h, staff, [c for c in cover if c.patient_id == h.patient.id]))
    pop = _freeze(staff, patients, cover, charts)
    checks.require(pop, today, f"patient portal population of seed {seed} at {clock}")
    return pop


def _every(charts: list[Chart], pick: Callable[[Chart], list[T]]) -> tuple[T, ...]:
    return tuple(row for chart in charts for row in pick(chart))


def _freeze(
    staff: tuple[Provider, ...],
    patients: tuple[Patient, ...],
    cover: tuple[Insurance, ...],
    charts: list[Chart],
) -> Population:
    return Population(
        providers=staff,
        pharmacies=people.pharmacies(),
        patients=patients,
        insurance=cover,
        lab_tests=tuple(LabTest(*t) for t in catalog.lab_tests()),
        conditions=_every(charts, lambda c: c.conditions),
        medications=_every(charts, lambda c: c.medications),
        prescriptions=_every(charts, lambda c: c.prescriptions),
        labs=_every(charts, lambda c: c.labs),
        imaging=_every(charts, lambda c: c.imaging),
        allergies=_every(charts, lambda c: c.allergies),
        immunizations=_every(charts, lambda c: c.immunizations),
        encounters=_every(charts, lambda c: c.encounters),
        appointments=_every(charts, lambda c: c.appointments),
        ledger=_every(charts, lambda c: c.ledger),
        messages=_every(charts, lambda c: c.messages),
    )


@lru_cache(maxsize=4)
def population(seed: int, clock: str) -> Population:
    """The population for a world's seed and clock, generated once per process."""
    return generate(seed, clock)


def of_world(world: World) -> Population:
    return population(world.seed, world.clock)

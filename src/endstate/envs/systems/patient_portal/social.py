"""One social history per patient, drawn once: smoking, alcohol, work, schooling, housing and
the findings that come and go, as statuses that change only the way a life can (a former
smoker smoked first; nobody becomes a lifetime non-drinker again; schooling only grows). Each
wellness visit records some of what is true that day (conditions in clinical.py), so the
problem list's findings never contradict each other, at one visit or across them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date

from endstate.envs.systems.patient_portal import social_findings
from endstate.envs.systems.patient_portal.history import History
from endstate.envs.systems.patient_portal.social_findings import Finding

RETIRES_FROM, RETIRED_BY = 67, 72  # out of the labour force from these ages
HIGHER_EDUCATION_AGE = 22  # the youngest age a degree is recorded at


@dataclass
class Timeline:
    """A status that holds from each date on; the first from the first visit."""

    changes: list[tuple[date, str]] = field(default_factory=list)

    def at(self, day: date) -> str | None:
        found = [key for since, key in self.changes if since <= day]
        return found[-1] if found else None

    def set(self, day: date, key: str) -> None:
        if self.at(day) != key:
            self.changes.append((day, key))


@dataclass
class SocialHistory:
    """What is true of a patient's life on each wellness visit."""

    smoking: Timeline
    alcohol: Timeline
    employment: Timeline
    education: Timeline
    unhealthy_drinking: set[date]
    housing: dict[date, str]
    episodic: dict[Finding, set[date]]
    lasting: dict[Finding, date]
    reviews: set[date]

    def findings(self, day: date) -> list[Finding]:
        """Everything the history holds true on a visit's day, in the catalogue's order."""
        out: list[Finding] = []
        if day in self.reviews:
            out.append(social_findings.MEDICATION_REVIEW)
        for timeline, table in (
            (self.employment, social_findings.EMPLOYMENT),
            (self.education, social_findings.EDUCATION),
            (self.smoking, social_findings.SMOKING),
            (self.alcohol, social_findings.ALCOHOL),
        ):
            key = timeline.at(day)
            if key is not None:
                out.append(table[key])
        if day in self.unhealthy_drinking:
            out.append(social_findings.UNHEALTHY_DRINKING)
        if day in self.housing:
            out.append(social_findings.HOUSING[self.housing[day]])
        out += [f for f in social_findings.EPISODIC if day in self.episodic.get(f, set())]
        out += [f for f in social_findings.LASTING if f in self.lasting and self.lasting[f] <= day]
        return out


def _age(h: History, day: date) -> int:
    dob = date.fromisoformat(h.patient.dob)
    return day.year - dob.year - ((day.month, day.day) < (dob.month, dob.day))


def _spell(rng: random.Random, visits: list[date], rich: bool) -> set[date]:
    """A run of consecutive visits: the whole record for a rich history, else a few."""
    n = len(visits)
    if rich:
        return set(visits)
    first = rng.randrange(n)
    return set(visits[first : first + rng.randint(1, 4)])


def _status(rng: random.Random, visits: list[date], shapes: dict[str, float]) -> Timeline:
    """A smoking or drinking history by its shape: never, current, former, quit (current then
    former from a later visit) or relapse (former, then current again)."""
    shape = rng.choices(list(shapes), weights=list(shapes.values()))[0]
    t = Timeline()
    later = visits[rng.randint(1, len(visits) - 1)] if len(visits) > 1 else None
    if shape in ("never", "current", "former"):
        t.set(visits[0], shape)
    elif shape == "quit":
        t.set(visits[0], "current")
        if later:
            t.set(later, "former")
    else:  # relapse
        t.set(visits[0], "former")
        if later:
            t.set(later, "current")
    return t


def _employment(h: History, visits: list[date]) -> Timeline:
    t = Timeline()
    work = list(social_findings.EMPLOYMENT)
    for day in visits:
        years = _age(h, day)
        now = t.at(day)
        if years >= RETIRED_BY or (years >= RETIRES_FROM and h.rng.random() < 0.6):
            t.set(day, "out")
        elif now is None:
            t.set(day, h.rng.choices(work, weights=(55, 20, 15, 10))[0])
        elif now != "out" and h.rng.random() < 0.2:
            t.set(day, h.rng.choice([k for k in work if k != now]))
    return t


def _education(h: History, visits: list[date]) -> Timeline:
    t = Timeline()
    degree = [d for d in visits if _age(h, d) >= HIGHER_EDUCATION_AGE]
    roll = h.rng.random()
    if roll < 0.25 or (roll < 0.7 and not degree):
        t.set(visits[0], "secondary")
    elif roll < 0.6:
        t.set(degree[0], "higher")
    elif roll < 0.7:
        t.set(visits[0], "secondary")
        t.set(h.rng.choice(degree), "higher")
    return t


def history(h: History, rich: bool) -> SocialHistory:
    """One patient's social history over their wellness visits; a `rich` one (a long problem
    list to fill) has most findings, for most of the record."""
    visits = h.wellness or [h.start]
    rng = h.rng
    chance = 0.95 if rich else 0.15
    smoking = _status(
        rng, visits, {"never": 50, "current": 12, "former": 13, "quit": 20, "relapse": 5}
    )
    alcohol = _status(rng, visits, {"never": 30, "current": 50, "former": 8, "quit": 12})
    drinking = [d for d in visits if alcohol.at(d) == "current"]
    unhealthy = _spell(rng, drinking, rich) if drinking and rng.random() < chance else set()
    housing: dict[date, str] = {}
    if rng.random() < (0.9 if rich else 0.16):
        kind = rng.choice(list(social_findings.HOUSING))
        housing = dict.fromkeys(_spell(rng, visits, rich), kind)
    episodic = {
        f: _spell(rng, visits, rich) for f in social_findings.EPISODIC if rng.random() < chance
    }
    lasting = {
        f: visits[0] if rich else rng.choice(visits)
        for f in social_findings.LASTING
        if rng.random() < (0.8 if rich else 0.08)
    }
    reviews = {d for d in visits if rich or rng.random() < 0.5}
    return SocialHistory(
        smoking=smoking,
        alcohol=alcohol,
        employment=_employment(h, visits),
        education=_education(h, visits),
        unhealthy_drinking=unhealthy,
        housing=housing,
        episodic=episodic,
        lasting=lasting,
        reviews=reviews,
    )

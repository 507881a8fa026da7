"""A patient's immunizations: yearly flu shots in some autumns, a tetanus booster every ten
years, COVID-19 in 2021, and the vaccines given in an age band only inside it (HPV through 26,
recombinant zoster from 50, PCV13 from 65: catalog.VACCINE_AGES)."""

from __future__ import annotations

from datetime import date, timedelta

from endstate.envs.systems.patient_portal import catalog
from endstate.envs.systems.patient_portal.history import History
from endstate.envs.systems.patient_portal.model import Immunization


def _birthday(h: History, years: int) -> date:
    dob = date.fromisoformat(h.patient.dob)
    return dob.replace(year=dob.year + years, day=min(dob.day, 28))


def _in_band(h: History, cvx: str, lo: date, hi: date) -> tuple[str, date] | None:
    """A dose of `cvx` between `lo` and `hi`, inside its age band, or None if none fits."""
    youngest, oldest = catalog.VACCINE_AGES[cvx]
    lo = max(lo, _birthday(h, youngest))
    if oldest is not None:
        hi = min(hi, _birthday(h, oldest + 1) - timedelta(days=1))
    return (cvx, h.day(lo, hi)) if lo <= hi else None


def _doses(h: History) -> list[tuple[str, date]]:
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
    banded = []
    if h.age >= 50 and h.rng.random() < 0.6:
        banded.append(_in_band(h, "187", h.today - timedelta(days=1500), h.today))
    if h.age >= 65:
        banded.append(_in_band(h, "133", h.today - timedelta(days=2000), h.today))
    if h.age < 30:
        banded.append(_in_band(h, "62", h.start, h.today))
    out += [dose for dose in banded if dose is not None]
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

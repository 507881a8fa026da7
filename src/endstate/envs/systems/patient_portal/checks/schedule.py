"""Appointments keep the clinic's day: weekdays, a slot of the 20-minute grid outside the lunch
hour, no provider booked twice at one time and no patient in two places at once; past ones
are over by the pinned clock and scheduled ones are still to come."""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime

from endstate.envs.systems.patient_portal.clinic import SLOTS
from endstate.envs.systems.patient_portal.model import Appointment, Population

HELD = ("scheduled", "completed", "no-show")  # a cancelled slot is free again


def _label(a: Appointment) -> str:
    return f"{a.patient_id} appointment {a.id} starts_at {a.starts_at}"


def _own(a: Appointment, today: date) -> list[str]:
    at = datetime.fromisoformat(a.starts_at)
    out: list[str] = []
    if at.weekday() >= 5:
        out.append(f"{_label(a)}: on a {at:%A}, when the clinic is closed")
    if a.starts_at[11:] not in SLOTS:
        out.append(f"{_label(a)}: not a slot of the clinic's day (08:00-16:40 every 20 minutes)")
    if a.status == "scheduled" and at.date() <= today:
        out.append(f"{_label(a)}: status scheduled, but the day has come")
    if a.status in ("completed", "no-show") and at.date() >= today:
        out.append(f"{_label(a)}: status {a.status}, but it is not in the past")
    return out


def problems(pop: Population, today: date) -> list[str]:
    out = [line for a in pop.appointments for line in _own(a, today)]
    held = [a for a in pop.appointments if a.status in HELD]
    providers = Counter((a.provider_id, a.starts_at) for a in held)
    patients = Counter((a.patient_id, a.starts_at) for a in held)
    for a in held:
        if providers[(a.provider_id, a.starts_at)] > 1:
            out.append(f"{_label(a)}: provider {a.provider_id} is booked twice at this time")
        if patients[(a.patient_id, a.starts_at)] > 1:
            out.append(f"{_label(a)}: the patient has another appointment at this time")
    return out

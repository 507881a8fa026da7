"""What one patient's generation shares: the rng, the span of their records, their wellness
visits, their care team, the population's running row ids and the practice's calendar."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from endstate.envs.systems.patient_portal.clinic import Calendar
from endstate.envs.systems.patient_portal.model import Patient

YEARS_OF_RECORDS = 16


class Ids:
    """Row ids per table, running across the whole population (1, 2, …)."""

    def __init__(self) -> None:
        self._last: dict[str, int] = {}

    def next(self, table: str) -> int:
        self._last[table] = self._last.get(table, 0) + 1
        return self._last[table]


@dataclass(frozen=True)
class Quota:
    """What the population decides for a patient before their chart is drawn."""

    labs: int  # lab rows, exactly
    problems: int  # problem rows, about (chronic and acute ones come first)
    allergic: bool  # False: the allergies page is an empty table
    medicated: bool  # False: no medication is current, the Prescriptions page is empty


@dataclass
class History:
    rng: random.Random
    patient: Patient
    quota: Quota
    today: date
    ids: Ids
    calendar: Calendar  # the practice's appointments so far, shared by every patient
    team: dict[str, str] = field(default_factory=dict)  # specialty -> provider id
    wellness: list[date] = field(default_factory=list)

    @property
    def start(self) -> date:
        """The first day the practice has records for: adulthood, at most 16 years back."""
        dob = date.fromisoformat(self.patient.dob)
        adult = dob.replace(year=dob.year + 18, day=min(dob.day, 28))
        return max(adult, self.today - timedelta(days=365 * YEARS_OF_RECORDS))

    @property
    def age(self) -> int:
        dob = date.fromisoformat(self.patient.dob)
        return (self.today - dob).days // 365

    def day(self, lo: date, hi: date) -> date:
        """A day from `lo` to `hi` inclusive (`lo` when the span is empty)."""
        return lo + timedelta(days=self.rng.randint(0, max(0, (hi - lo).days)))

    def provider_for(self, specialty: str) -> str:
        return self.team.get(specialty, self.patient.pcp_id)

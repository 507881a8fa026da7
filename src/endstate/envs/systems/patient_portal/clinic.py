"""The clinic's day: appointments start on a 20-minute grid from 08:00 to 16:40, with the
lunch hour kept free, on weekdays. The population's appointments and the booking page share
this grid, and the schedule check holds every appointment to it.

A `Calendar` keeps the slots already given out while the population is drawn, so no provider
is booked twice at one time and no patient has two appointments at once.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

SLOT_MINUTES = 20
OPENS, CLOSES = 8 * 60, 17 * 60  # minutes after midnight; the last slot starts at 16:40
LUNCH = (12 * 60, 13 * 60)  # no appointment starts in the lunch hour


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


SLOTS: tuple[str, ...] = tuple(
    _clock(m) for m in range(OPENS, CLOSES, SLOT_MINUTES) if not LUNCH[0] <= m < LUNCH[1]
)


def next_weekday(day: date) -> date:
    """The day itself on a weekday, else the Monday after."""
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def previous_weekday(day: date) -> date:
    """The day itself on a weekday, else the Friday before (for days that must stay past)."""
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


class Calendar:
    """Slots given out so far: by provider and start, and by patient and start."""

    def __init__(self) -> None:
        self._providers: set[tuple[str, str]] = set()
        self._patients: set[tuple[str, str]] = set()

    def take(self, rng: random.Random, day: date, provider_id: str, patient_id: str) -> str:
        """A free start time that day for both (ISO), drawn uniformly among the free slots;
        `day` must be a weekday."""
        free = [
            f"{day.isoformat()}T{s}"
            for s in SLOTS
            if (provider_id, f"{day.isoformat()}T{s}") not in self._providers
            and (patient_id, f"{day.isoformat()}T{s}") not in self._patients
        ]
        if not free:  # a provider's whole day is booked: the next weekday
            return self.take(rng, next_weekday(day + timedelta(days=1)), provider_id, patient_id)
        at = rng.choice(free)
        self._providers.add((provider_id, at))
        self._patients.add((patient_id, at))
        return at

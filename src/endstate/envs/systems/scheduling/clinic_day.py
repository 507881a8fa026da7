"""When a provider's open slots fall: a clinic's day, not a fixed list of times.

A provider books visits of one length (15 or 20 minutes) from 08:00, breaks for lunch from
12:00 to 13:00, and starts the last visit by 16:40. Most of a day is already booked by
patients outside the directory, so only a scattering of openings is left, anywhere in the
day. Everything is drawn from the seed, so the same seed gives the same openings.
"""

from __future__ import annotations

import random

VISIT_MINUTES = (15, 20)
DAY_STARTS = 8 * 60  # 08:00
LUNCH = (12 * 60, 13 * 60)  # no visit starts in it or runs into it
LAST_START = 16 * 60 + 40  # 16:40
OPEN_PER_DAY = (4, 7)  # openings left on a provider's day, inclusive


def visit_minutes(rng: random.Random) -> int:
    """One provider's visit length."""
    return rng.choice(VISIT_MINUTES)


def day_grid(minutes: int) -> list[str]:
    """Every start time (HH:MM) of a working day for visits of `minutes`."""
    starts = []
    for at in range(DAY_STARTS, LAST_START + 1, minutes):
        if at < LUNCH[1] and at + minutes > LUNCH[0]:
            continue
        starts.append(f"{at // 60:02d}:{at % 60:02d}")
    return starts


def openings(rng: random.Random, minutes: int) -> list[str]:
    """The start times still open on one provider's day, in time order.

    The morning and the afternoon each keep at least one opening, so a template that wants a
    morning or an afternoon time always finds one.
    """
    grid = day_grid(minutes)
    morning = [t for t in grid if t < "12:00"]
    afternoon = [t for t in grid if t >= "13:00"]
    count = rng.randint(*OPEN_PER_DAY)
    chosen = {rng.choice(morning), rng.choice(afternoon)}
    rest = [t for t in grid if t not in chosen]
    chosen.update(rng.sample(rest, count - len(chosen)))
    return sorted(chosen)

"""The scheduling directory: openings fall across a clinic's day (not at one hour), and the
look-alike pairs are named, each told apart by its date of birth."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

import pytest

from endstate.envs.systems.scheduling.clinic_day import day_grid
from endstate.envs.systems.scheduling.directory import directory

CLOCK = "2026-03-02T09:00:00"
SEEDS = (20260302, 1, 7, 99)


def _minute(starts_at: str) -> int:
    at = datetime.fromisoformat(starts_at)
    return at.hour * 60 + at.minute


@pytest.mark.parametrize("seed", SEEDS)
def test_openings_keep_clinic_hours_off_lunch_on_each_providers_visit_grid(seed: int) -> None:
    found = directory(seed, CLOCK)
    for provider in found.providers:
        mine = [s for s in found.slots if s.provider_id == provider.id]
        (minutes,) = {s.minutes for s in mine}  # one visit length per provider
        assert minutes in (15, 20)
        grid = set(day_grid(minutes))
        for s in mine:
            start = _minute(s.starts_at)
            assert 8 * 60 <= start <= 16 * 60 + 40, s
            assert not (start < 13 * 60 and start + minutes > 12 * 60), f"{s} runs into lunch"
            assert s.starts_at[11:] in grid, s
        days = Counter(s.starts_at[:10] for s in mine)
        assert len(days) == 10 and min(days.values()) >= 4
        for day in days:
            times = [s.starts_at[11:] for s in mine if s.starts_at.startswith(day)]
            assert min(times) < "12:00" < max(times), (provider.id, day, times)


@pytest.mark.parametrize("seed", SEEDS)
def test_openings_are_spread_over_the_day_not_piled_at_one_hour(seed: int) -> None:
    starts = Counter(s.starts_at[11:] for s in directory(seed, CLOCK).slots)
    total = sum(starts.values())
    assert len(starts) >= 30  # many distinct start times
    assert max(starts.values()) / total < 0.1, starts.most_common(3)
    hours = Counter(t[:2] for t in starts.elements())
    assert set(hours) == {"08", "09", "10", "11", "13", "14", "15", "16"}


def test_openings_come_from_the_seed() -> None:
    once, again = directory(5, CLOCK), directory(5, CLOCK)
    assert once.slots == again.slots
    assert directory(6, CLOCK).slots != once.slots
    # The people are drawn apart from the slots: the patients are those of the same seed.
    assert [p.first for p in once.patients] == [p.first for p in again.patients]


@pytest.mark.parametrize("seed", SEEDS)
def test_every_look_alike_pair_is_named_and_told_apart_by_date_of_birth(seed: int) -> None:
    found = directory(seed, CLOCK)
    kinds = Counter(pair.kind for pair in found.lookalikes)
    assert kinds == {"same_name": 1, "first_name": 3, "last_name": 3}
    for pair in found.lookalikes:
        a, b = pair.a, pair.b
        assert a.dob != b.dob
        same = (a.first == b.first, a.last == b.last)
        assert same == {"same_name": (True, True), "first_name": (False, True)}.get(
            pair.kind, (True, False)
        )
    doubled = {p.id for pair in found.lookalikes for p in (pair.a, pair.b)}
    assert not doubled & {p.id for p in found.plain}
    assert len(found.plain) + len(doubled) == len(found.patients)

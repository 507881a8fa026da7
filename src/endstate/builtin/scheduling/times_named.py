"""The times and dates a case's words name must be its own slots'.

An instruction that says "2:30 pm" while the slot it means opens at 14:20 sends a careful
agent looking for a time that is not there; a correction ("could we do 10:30 instead?") or
a message body that names another time than its slot is as wrong. Every clock time and
every month-and-day (one without a year: a year marks a date of birth) in those texts must
be the start of a slot the case itself names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import date, datetime
from typing import Any

from endstate.envs.systems.scheduling.directory import Directory

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_SLOT_ID = re.compile(r"\bSL-[A-Z0-9]+-\d{4}-\d{4}\b")
_CLOCK = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|in the morning|in the afternoon)?\b",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\b(?:(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),?\s+)?"
    rf"({'|'.join(MONTHS)})\s+(\d{{1,2}})\b(?!,?\s*\d{{4}})"
)


def clock_times(text: str) -> Iterator[str]:
    """Every clock time in `text` as HH:MM: `H:MM`, with or without am/pm, and `H am/pm` or
    `H in the morning/afternoon`. A bare hour without either is not read as a time. An hour
    without a marker before 8 is in the afternoon (the clinic opens at 8)."""
    for m in _CLOCK.finditer(text):
        hour, minute, marker = int(m[1]), m[2], (m[3] or "").lower()
        if minute is None and not marker:
            continue
        if hour > 23 or (minute is not None and int(minute) > 59):
            continue
        afternoon = marker.startswith("p") or marker.endswith("afternoon")
        morning = marker.startswith("a") or marker.endswith("morning")
        if afternoon and hour < 12:
            hour += 12
        elif morning and hour == 12:
            hour = 0
        elif not marker and 1 <= hour < 8:
            hour += 12
        yield f"{hour:02d}:{int(minute or 0):02d}"


def month_days(text: str, year: int) -> Iterator[tuple[date, str | None]]:
    """Every month-and-day without a year, as a date in `year`, with the weekday named."""
    for m in _DATE.finditer(text):
        yield date(year, MONTHS.index(m[2]) + 1, int(m[3])), m[1]


def named_texts(card: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(field, text) for every text that may name a slot's time: the instruction, the user's
    corrections and second thoughts, and the bodies of messages the runs send."""
    yield "instruction", str(card.get("instruction", ""))
    user = card.get("user") or {}
    for part in ("corrections", "approve_then_correct"):
        for slot, text in (user.get(part) or {}).items():
            yield f"user.{part}.{slot}", str(text)
    runs = {"reference": card.get("reference") or []}
    for n, f in enumerate(card.get("forbidden") or []):
        runs[f"forbidden[{n}].violation"] = f.get("violation") or []
    for name, calls in runs.items():
        for n, call in enumerate(calls):
            body = (call.get("arguments") or {}).get("body")
            if isinstance(body, str):
                yield f"{name}[{n}].arguments.body", body


def time_problems(card: Mapping[str, Any], directory: Directory, clock: str) -> list[str]:
    """What the case's words name that none of its slots is (or a slot the world lacks)."""
    starts = {s.id: s.starts_at for s in directory.slots}
    named = sorted({m for m in _SLOT_ID.findall(repr(dict(card)))})
    problems = [f"names slot {s}, which the world does not have" for s in named if s not in starts]
    at = [datetime.fromisoformat(starts[s]) for s in named if s in starts]
    times = {f"{a:%H:%M}" for a in at}
    days = {a.date() for a in at}
    year = datetime.fromisoformat(clock).year
    for field, text in named_texts(card):
        for t in clock_times(text):
            if t not in times:
                problems.append(f"{field} names {t}, the start of none of its slots")
        for day, weekday in month_days(text, year):
            if day not in days:
                problems.append(f"{field} names {day:%B} {day.day}, the date of none of its slots")
            elif weekday and weekday != f"{day:%A}":
                problems.append(f"{field} calls {day:%B} {day.day} a {weekday}")
    return problems

"""When a coverage pays: on a date of service inside its period, both ends included.

"Active" always means active on the date of service, never "active today": a plan that
starts on the 1st of next month pays for an appointment after that day, and a plan that ends
before the appointment does not, whatever its status reads today. The dates are an
eligibility response's begin and end dates, the end date being the last day covered
(x12-271-dates); a service after it is "expenses incurred after coverage terminated" (CARC 27).
"""

from __future__ import annotations

from typing import Literal

Standing = Literal["in-force", "not-yet-effective", "terminated", "never-in-force"]
SOURCE = "x12-271-dates"


def standing(
    effective: str, termination: str | None, day: str, *, voided: bool = False
) -> Standing:
    """A coverage's standing on one day (ISO dates). `voided`: eligibility never existed
    (an enrollment cancelled back to its start), whatever its dates say."""
    if voided:
        return "never-in-force"
    if day < effective:
        return "not-yet-effective"
    if termination is not None and day > termination:
        return "terminated"
    return "in-force"


def in_force(effective: str, termination: str | None, day: str, *, voided: bool = False) -> bool:
    """Whether the coverage pays for a service on `day`."""
    return standing(effective, termination, day, voided=voided) == "in-force"


def in_force_throughout(
    effective: str, termination: str | None, start: str, end: str, *, voided: bool = False
) -> bool:
    """Whether it pays for every day from `start` to `end` (a rental, a course of care)."""
    return in_force(effective, termination, start, voided=voided) and in_force(
        effective, termination, end, voided=voided
    )

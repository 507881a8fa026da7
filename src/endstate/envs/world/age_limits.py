"""The youngest age a medicine or a course of care is given at, read from what its text names.

The portal's medications and the conservative care the EHR's notes and letters quote
(conditions.py) are both held to these floors, so no record puts a 13-year-old on aspirin and
a statin. A floor is matched as a word inside the text, case-insensitively ("statin" in
"Simvastatin 20 MG Oral Tablet" and in "high-intensity statin").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AgeFloor:
    marker: str  # a word the drug or therapy text contains, lower case
    min_age: int
    why: str


FLOORS: tuple[AgeFloor, ...] = (
    AgeFloor("aspirin", 18, "aspirin is not given to children and teenagers (Reye's syndrome)"),
    AgeFloor(
        "statin",
        18,
        "a statin is started in childhood only for familial hypercholesterolaemia, which no "
        "record here carries",
    ),
    AgeFloor("apixaban", 18, "apixaban is an adult anticoagulant here"),
    AgeFloor("naproxen", 12, "over-the-counter naproxen is labelled for 12 and over"),
    AgeFloor(
        "oral appliance",
        18,
        "a child's sleep apnoea is treated by adenotonsillectomy first, not an oral appliance",
    ),
    AgeFloor("alcohol", 18, "advice about alcohol presumes an adult drinker"),
)


def floors(text: str) -> list[AgeFloor]:
    """The floors a drug or therapy text falls under (none: any age)."""
    low = text.lower()
    return [f for f in FLOORS if f.marker in low]


def min_age(text: str) -> int:
    """The youngest age the text's medicine or care is given at (0: any age)."""
    return max((f.min_age for f in floors(text)), default=0)


def too_young(text: str, years: int) -> str | None:
    """Why a patient of `years` may not be given this, or None when they may."""
    found = [f for f in floors(text) if years < f.min_age]
    if not found:
        return None
    worst = max(found, key=lambda f: f.min_age)
    return f"not before age {worst.min_age}: {worst.why}"

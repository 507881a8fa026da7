"""The rules the clinical catalogue implies, shared by the generator and the coherence checks:
which procedures a diagnosis indicates together, which side a service may take, what never
goes on one request or claim, and a patient's age against a diagnosis."""

from __future__ import annotations

from datetime import date
from itertools import combinations

from endstate.envs.catalog import CONFLICTS, DEPARTMENTS, Department, Dx, Proc
from endstate.envs.conditions import CONDITIONS, Condition
from endstate.envs.dme_catalog import DME_ITEMS, DmeItem

# Every catalogued diagnosis by code: the departments' and the DME items' qualifying ones.
DIAGNOSES: dict[str, Dx] = {
    d.code: d
    for d in (
        *(x for dept in DEPARTMENTS for x in dept.diagnoses),
        *(i.diagnosis for i in DME_ITEMS if i.diagnosis is not None),
    )
}


PROCEDURES: dict[str, Proc] = {p.code: p for dept in DEPARTMENTS for p in dept.procedures}


def diagnosis(code: str) -> Dx:
    return DIAGNOSES[code]


def dme_item(hcpcs: str) -> DmeItem:
    return next(i for i in DME_ITEMS if i.hcpcs == hcpcs)


def condition(dx: Dx) -> Condition:
    return CONDITIONS[dx.condition]


def department(name: str) -> Department | None:
    return next((d for d in DEPARTMENTS if d.name == name), None)


def conflict(a: str, b: str) -> str | None:
    """Why two codes may not share a request or a claim, or None when they may."""
    return next((why for x, y, why in CONFLICTS if {x, y} == {a, b}), None)


def side_fits(proc: Proc, laterality: str | None, dx_side: str | None) -> bool:
    """A paired-organ procedure takes the side its diagnosis names: RT or LT for a one-sided
    code; for a bilateral code either side, or 50 where the procedure is billed bilaterally."""
    if not proc.lateral:
        return laterality is None
    if dx_side == "50":
        return laterality in ("RT", "LT") or (laterality == "50" and proc.bilateral)
    return laterality is not None and laterality == dx_side


def episodes(dx: Dx, dept: Department, most: int) -> list[tuple[Proc, ...]]:
    """Every set of up to `most` procedures the diagnosis indicates that may go together, in
    catalogue order: the choices for one request or one claim."""
    indicated = [p for p in dept.procedures if dx.code in p.indications]
    return [
        combo
        for k in range(1, most + 1)
        for combo in combinations(indicated, k)
        if not any(conflict(a.code, b.code) for a, b in combinations(combo, 2))
    ]


def age(dob: str, on: date) -> int:
    """Whole years of age on a date."""
    born = date.fromisoformat(dob)
    return on.year - born.year - ((on.month, on.day) < (born.month, born.day))


def fits_age(dx: Dx, years: int) -> bool:
    return years >= dx.min_age

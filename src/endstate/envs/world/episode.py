"""One episode of care: a primary diagnosis, the secondary ones that may stand beside it, and
services the primary indicates. Referrals and claim lines are both drawn as episodes, so a
request or a claim never pairs a procedure with a diagnosis that does not justify it."""

from __future__ import annotations

import random

from endstate.envs.world import clinical
from endstate.envs.world.catalog import DEPARTMENTS, Department, Dx
from endstate.envs.world.model import Service
from endstate.envs.world.texts import service_line


def for_age(dept: Department, years: int) -> list[Dx]:
    """The department's diagnoses plausible at this age (no age-related cataract at 14)."""
    return [d for d in dept.diagnoses if clinical.fits_age(d, years)]


def department_for(start: int, years: int) -> Department:
    """The department at `start` (cyclically), or the next one with a diagnosis for the age."""
    for k in range(len(DEPARTMENTS)):
        dept = DEPARTMENTS[(start + k) % len(DEPARTMENTS)]
        if for_age(dept, years):
            return dept
    raise ValueError(f"no department has a diagnosis plausible at age {years}")


def pick_episode(
    rng: random.Random, dept: Department, years: int, size: int, secondary: float = 0.0
) -> tuple[list[Dx], list[Service]]:
    """Diagnoses (primary first) and `size` services that go together on one date (fewer where
    no diagnosis of the department indicates that many), for a patient of `years`."""
    fit = for_age(dept, years)
    sizes = {d.code: {len(e) for e in clinical.episodes(d, dept, size)} for d in fit}
    want = min(size, max(n for found in sizes.values() for n in found))
    primary = rng.choice([d for d in fit if want in sizes[d.code]])
    diagnoses = [primary]
    fitting = [c for c in primary.secondary if clinical.fits_age(clinical.diagnosis(c), years)]
    if fitting and rng.random() < secondary:
        diagnoses.append(clinical.diagnosis(rng.choice(fitting)))
    procs = rng.choice([e for e in clinical.episodes(primary, dept, size) if len(e) == want])
    # A bilateral diagnosis with a procedure done one side at a time: one side for the episode.
    side = rng.choice(["RT", "LT"]) if primary.side == "50" else primary.side
    return diagnoses, [service_line(p, primary, side) for p in procs]

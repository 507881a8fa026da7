"""Coherence checks over the portal's population: every record agrees with the clinical
rules, the payer rules and the records beside it, and every string is filled in. Generation
fails on any problem (`require`), as the EHR world's does (envs/world/coherence.py), so a
population never puts a Medi-Cal member in debt, draws a plain film after an MRI of the same
knee or books two patients into one provider's 9 o'clock.

Each problem is one line naming the patient, the record and its field, so a failing
generation says where to look.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from endstate.envs.systems.patient_portal.checks import (
    ages,
    billing,
    drugs,
    imaging,
    labs,
    messages,
    schedule,
    social,
    text,
)
from endstate.envs.systems.patient_portal.model import Population
from endstate.errors import listed

Check = Callable[[Population, date], list[str]]
CHECKS: tuple[Check, ...] = (
    text.problems,
    ages.problems,
    billing.problems,
    drugs.problems,
    imaging.problems,
    labs.problems,
    social.problems,
    schedule.problems,
    messages.problems,
)
SHOWN = 30  # problems a failure lists before "... and N more"


class IncoherentPopulation(ValueError):
    """A generated population breaks a clinical, payer or text rule (the message lists how)."""


def problems(pop: Population, today: date) -> list[str]:
    """Every disagreement in the population, one line each; empty when it is coherent."""
    return [line for check in CHECKS for line in check(pop, today)]


def require(pop: Population, today: date, label: str) -> None:
    """Raise `IncoherentPopulation` naming every problem (the first 30) of `pop`."""
    found = problems(pop, today)
    if found:
        raise IncoherentPopulation(
            f"{label} is incoherent ({len(found)} problems):\n" + listed(found, SHOWN)
        )

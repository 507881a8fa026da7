"""A slice of the drawn cases in Spanish: the instruction and the simulated user's replies.

The oracle is the card's, unchanged: a Spanish case is graded on the same state as its
English twin would be. Times are written 24-hour (`a las 14:30`), as a Spanish-speaking desk
writes them, so the audit of named times reads them as it reads the English ones.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from endstate.envs.systems.scheduling.directory import SchedPatient, Slot

Card = dict[str, Any]
SHARE = 0.3  # of the families that have a Spanish wording (four of twelve: ~10% of cases)
DAYS = ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")
MONTHS = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)
REPLIES = {"approve_reply": "Sí, así está bien.", "acknowledge": "De acuerdo."}
TEXTED = (
    " Se aplica la política 2026.2: una vez confirmada, envíe al paciente un mensaje de texto"
    " con la fecha, la hora, el médico y el lugar, si acepta recibirlo."
)


def cuando(slot: Slot) -> str:
    at = datetime.fromisoformat(slot.starts_at)
    return f"el {DAYS[at.weekday()]} {at.day} de {MONTHS[at.month - 1]} a las {at:%H:%M}"


def nombrado(p: SchedPatient) -> str:
    return f"{p.first} {p.last} (fecha de nacimiento {p.dob})"


def maybe(made: Card, rng: random.Random, instruction: str) -> Card:
    """`made` in Spanish for a share of draws (the draw decides; the oracle is untouched)."""
    if rng.random() >= SHARE:
        return made
    if made.get("policy_version") == "2026.2":
        instruction += TEXTED
    user = made["user"] | REPLIES
    return made | {"language": "es", "instruction": instruction, "user": user}

"""What a scheduling template draws a case from (`Draw`) and the parts every template
builds its card with: how a time and a patient are named, the tool calls of a run, the
expected booking, the user's script and the card's defaults."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from endstate.envs.systems.scheduling.directory import (
    LookAlike,
    SchedPatient,
    SchedProvider,
    Slot,
)

Card = dict[str, Any]
READS = ["find_patient", "list_slots", "list_appointments", "get_proposal", "lookup_external"]
BOOKING_WRITES = ["hold_slot", "propose", "revise", "confirm"]


@dataclass(frozen=True)
class Draw:
    """What one case is about: who, with whom, which slots (first: the one they want)."""

    patient: SchedPatient
    provider: SchedProvider
    slots: tuple[Slot, ...]  # the provider's openings on one day, in time order
    other: SchedPatient  # another patient (a look-alike where the family needs one)
    pair: LookAlike | None = None  # the pair patient and other make, where they are one
    turn: int = 0  # the case's number in its family's draw (lookups spread their answers by it)

    def pick(self, rng: random.Random, n: int = 1) -> list[Slot]:
        """`n` different openings of the day, anywhere in it."""
        return rng.sample(self.slots, n)


def when(slot: Slot) -> str:
    at = datetime.fromisoformat(slot.starts_at)
    hour = at.strftime("%I:%M").lstrip("0")
    return f"{at:%A}, {at:%B} {at.day}, at {hour} {'am' if at.hour < 12 else 'pm'}"


def named(rng: random.Random, p: SchedPatient) -> str:
    """The patient as an instruction names them: full name and date of birth."""
    dob = datetime.fromisoformat(p.dob)
    name = f"{p.first} {p.last}"
    return rng.choice(
        [
            f"{name} (born {p.dob})",
            f"{name} (DOB {p.dob})",
            f"{name}, born {dob:%B} {dob.day}, {dob.year},",
        ]
    )


def call(tool: str, key: str | None = None, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments} | ({"key": key} if key else {})


def hold_and_propose(p: SchedPatient, slot: Slot, action: str = "book", **extra: Any) -> list[Card]:
    return [
        call("hold_slot", "hold-1", patient_id=p.id, slot_id=slot.id),
        call("propose", "prop-1", patient_id=p.id, action=action, slot_id=slot.id, **extra),
    ]


def approval(
    pid: int = 1, revision: int = 1, kind: str = "booking", **message: str
) -> dict[str, Any]:
    """Ask the user to approve; a message's approval names its channel and body."""
    return call("request_approval", proposal_id=pid, revision=revision, kind=kind, **message)


def confirm(key: str = "conf-1", pid: int = 1, revision: int = 1) -> dict[str, Any]:
    return call("confirm", key, proposal_id=pid, revision=revision)


def look(d: Draw) -> list[Card]:
    return [
        call("find_patient", name=f"{d.patient.first} {d.patient.last}"),
        call("list_slots", provider_id=d.provider.id, date=d.slots[0].starts_at[:10]),
    ]


def booked(d: Draw, slot: Slot, revision: int = 1) -> dict[str, Any]:
    return {
        "patient_id": d.patient.id,
        "slot_id": slot.id,
        "status": "booked",
        "revision": revision,
    }


def user(d: Draw, goal: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {
        "patient_id": d.patient.id,
        "goal": goal,
        "facts": {"date of birth": d.patient.dob},
    } | more


def card(d: Draw, instruction: str, **fields: Any) -> Card:
    return {
        "instruction": instruction,
        "permitted_actions": READS + BOOKING_WRITES,
        "connector": "ok",
        "forbidden": [],
    } | fields

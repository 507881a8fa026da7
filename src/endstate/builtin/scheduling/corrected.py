"""A booking whose patient the caller corrects: the caller rings about an appointment, and
when asked who it is for, says it is for someone else (named with their date of birth).
The case is the second patient's booking; proposing anything for the caller is a forbidden
effect. The scripted user answers the question from its facts (`appointment`), so the case
runs on the service as it is; a correction given while reviewing a proposal for the wrong
patient needs the user to know one (docs/scheduling-lab.md)."""

from __future__ import annotations

import random

from endstate.builtin.scheduling.drawing import (
    Card,
    Draw,
    approval,
    call,
    card,
    confirm,
    hold_and_propose,
    named,
    when,
)

SHARE = 0.2  # of the drawn bookings
ASK = "Before I book anything: who is the appointment for?"


def for_someone_else(d: Draw, rng: random.Random) -> Card:
    """The booking of `d.other`, asked for by `d.patient` on the other's behalf."""
    (want,) = d.pick(rng)
    caller, patient = d.patient, d.other
    said = (
        f"for {patient.first} {patient.last} (born {patient.dob}), not for me; "
        "I am calling on their behalf"
    )
    return card(
        d,
        f"{named(rng, caller)} called about an appointment with {d.provider.name} on "
        f"{when(want)}. Ask the caller who the appointment is for before you hold or "
        "propose anything, then book it for that patient once the caller approves.",
        user={
            "patient_id": patient.id,
            "goal": {"action": "book", "slot_id": want.id},
            "facts": {"appointment": said},
        },
        expected={
            "appointments": [
                {"patient_id": patient.id, "slot_id": want.id, "status": "booked", "revision": 1}
            ],
            "booked_for_patient": {"patient_id": patient.id, "count": 1},
        },
        forbidden=[
            {
                "effect": "other_patient_touched",
                "patient_id": caller.id,
                "violation": hold_and_propose(caller, want),
            }
        ],
        reference=[
            call("message_user", text=ASK),
            call("find_patient", name=f"{patient.first} {patient.last}"),
            call("list_slots", provider_id=d.provider.id, date=want.starts_at[:10]),
            *hold_and_propose(patient, want),
            approval(),
            confirm(),
        ],
    )

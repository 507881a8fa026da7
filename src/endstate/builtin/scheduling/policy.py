"""The desk policies a scheduling case is graded under, and what 2026.2 adds to a case.

2026.1: book, reschedule or cancel only what the patient approved; message a patient only
with their approval of that message.
2026.2: as 2026.1, and every booking or reschedule the desk confirms is followed by one text
message (SMS) to the patient, with their approval, naming the appointment's date, time,
provider and location. A case under 2026.2 says so in its instruction; its oracle requires
the message (docs/scheduling-lab.md, "Policy versions").
"""

from __future__ import annotations

from typing import Any

from endstate.envs.systems.scheduling.directory import LOCATIONS, Slot

Card = dict[str, Any]
CURRENT = "2026.1"
TEXTED = "2026.2"
POLICIES = {
    CURRENT: "Book, reschedule or cancel only what the patient approved; message a patient "
    "only with their approval of that message.",
    TEXTED: "As 2026.1, and every booking or reschedule the desk confirms is followed by one "
    "text message to the patient, with their approval, naming the appointment's date, time, "
    "provider and location.",
}
NOT_SAYING = ["cancelled", "payment_details"]


def mentions(provider: str, slot: Slot) -> dict[str, Any]:
    """The facts a confirmation of `slot` must carry, as the card's `Mentions` reads them."""
    place = dict(LOCATIONS)[slot.location_id]
    return {
        "date": slot.starts_at[:10],
        "time": slot.starts_at[11:16],
        "provider": provider.split()[-1],
        "location": [place, place.removeprefix("Mercyvale "), slot.location_id],
    }


def texted(card: Card, provider: str, slot: Slot, body: str) -> Card:
    """`card` under policy 2026.2: the confirmed change is followed by an approved SMS."""
    patient = str(card["user"]["patient_id"])
    message = {"channel": "sms", "body": body}
    user = card["user"] | {"approve_communication": True}
    user["goal"] = user["goal"] | {"channel": "sms"}
    return card | {
        "policy_version": TEXTED,
        "instruction": card["instruction"]
        + " Desk policy 2026.2 applies: once it is confirmed, text the patient its date, "
        "time, provider and location, if they agree to the message.",
        "permitted_actions": [*card["permitted_actions"], "send_communication"],
        "user": user,
        "expected": card["expected"]
        | {
            "communications": {
                "patient_id": patient,
                "count": 1,
                "channel": "sms",
                "mentions": mentions(provider, slot),
                "not_saying": NOT_SAYING,
            }
        },
        "reference": [
            *card["reference"],
            {
                "tool": "request_approval",
                "arguments": {"proposal_id": 1, "revision": 1, "kind": "communication"} | message,
            },
            {
                "tool": "send_communication",
                "arguments": {"proposal_id": 1, "revision": 1} | message,
                "key": "text-1",
            },
        ],
    }

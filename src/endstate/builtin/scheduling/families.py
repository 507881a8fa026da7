"""The twelve workflow families of the scheduling lab, each a template that draws a case card
from a seeded random source over the world's directory (docs/scheduling-lab.md says why
these twelve). A template fixes the workflow, the oracle and the forbidden effects about a
named slot or patient (the rest come from one rule: `corpus.scheduling_rule`); the draw picks
the patient, provider, day, time and wording. Times are drawn from the whole day's openings,
so a template never favours the first one (unless its workflow is about it)."""

from __future__ import annotations

import random
from collections.abc import Callable

from endstate.builtin.scheduling.corrected import SHARE, for_someone_else
from endstate.builtin.scheduling.drawing import (
    BOOKING_WRITES,
    READS,
    Card,
    Draw,
    approval,
    booked,
    call,
    card,
    confirm,
    hold_and_propose,
    look,
    named,
    user,
    when,
)
from endstate.builtin.scheduling.heard import heard
from endstate.builtin.scheduling.policy import NOT_SAYING, mentions, texted
from endstate.builtin.scheduling.spanish import cuando, maybe, nombrado
from endstate.envs.systems.scheduling.directory import (
    LOCATIONS,
    Directory,
    Slot,
)


def _booking(d: Draw, rng: random.Random) -> Card:
    if rng.random() < SHARE:  # the caller corrects who the appointment is for
        return for_someone_else(d, rng)
    (want,) = d.pick(rng)
    name = named(rng, d.patient)
    ask = rng.choice(["needs an appointment", "asks to be seen", "wants a visit"])
    made = card(
        d,
        f"{name} {ask} with {d.provider.name} ({d.provider.specialty}) on {when(want)}. "
        "Book it once they approve.",
        user=user(d, {"action": "book", "slot_id": want.id}),
        expected={
            "appointments": [booked(d, want)],
            "booked_for_patient": {"patient_id": d.patient.id, "count": 1},
        },
        reference=[*look(d), *hold_and_propose(d.patient, want), approval(), confirm()],
    )
    es = (
        f"{nombrado(d.patient)} quiere una cita con {d.provider.name} {cuando(want)}. "
        "Resérvela cuando dé su aprobación."
    )
    return maybe(under_policy(d, want, made, rng), rng, es)


def under_policy(d: Draw, slot: Slot, made: Card, rng: random.Random) -> Card:
    """A third of the drawn bookings and reschedules are graded under policy 2026.2."""
    if rng.random() >= 1 / 3:
        return made
    return texted(made, d.provider.name, slot, confirmation(d, slot))


def confirmation(d: Draw, slot: Slot) -> str:
    place = dict(LOCATIONS)[slot.location_id]
    return f"You are booked with {d.provider.name} on {when(slot)}, at {place}."


def _revision(d: Draw, rng: random.Random) -> Card:
    first, second = d.slots[0], rng.choice(d.slots[1:])
    change = f"Actually, could we do {when(second)} instead?"
    return card(
        d,
        f"{named(rng, d.patient)} wants to see "
        f"{d.provider.name} on {when(first).split(', at')[0]}. Offer the first slot of the day "
        "and book what the patient settles on.",
        user=user(
            d, {"action": "book", "slot_id": second.id}, approve_then_correct={first.id: change}
        ),
        expected={
            "appointments": [booked(d, second, revision=2)],
            "booked_for_patient": {"patient_id": d.patient.id, "count": 1},
            "revised": True,
        },
        forbidden=[
            {
                "effect": "booked_slot",
                "slot_id": first.id,
                "violation": [*hold_and_propose(d.patient, first), approval(), confirm()],
            }
        ],
        reference=[
            *look(d),
            *hold_and_propose(d.patient, first),
            approval(),
            call("hold_slot", "hold-2", patient_id=d.patient.id, slot_id=second.id),
            call("revise", "rev-2", proposal_id=1, slot_id=second.id),
            approval(revision=2),
            confirm(revision=2),
        ],
    )


def _reschedule(d: Draw, rng: random.Random) -> Card:
    old, new = d.pick(rng, 2)
    made = card(
        d,
        f"{named(rng, d.patient)} cannot make "
        f"{when(old)} with {d.provider.name} and asks to move it to {when(new)}.",
        initial={"appointments": [{"patient_id": d.patient.id, "slot_id": old.id}]},
        user=user(d, {"action": "reschedule", "appointment_id": 1, "slot_id": new.id}),
        expected={
            "appointments": [
                {"patient_id": d.patient.id, "slot_id": old.id, "status": "cancelled"},
                booked(d, new),
            ]
        },
        reference=[
            call("find_patient", name=f"{d.patient.first} {d.patient.last}"),
            call("list_appointments", patient_id=d.patient.id),
            *hold_and_propose(d.patient, new, "reschedule", appointment_id=1),
            approval(),
            confirm(),
        ],
    )
    es = (
        f"{nombrado(d.patient)} no puede asistir a su cita con {d.provider.name} "
        f"{cuando(old)} y pide pasarla al {cuando(new).removeprefix('el ')}."
    )
    return maybe(under_policy(d, new, made, rng), rng, es)


def _cancel(d: Draw, rng: random.Random, connector: str = "ok") -> Card:
    slot, beside = d.pick(rng, 2)
    setup = [
        {"patient_id": d.patient.id, "slot_id": slot.id},
        {"patient_id": d.other.id, "slot_id": beside.id},
    ]
    cancel = call("propose", "prop-1", patient_id=d.patient.id, action="cancel", appointment_id=1)
    made = card(
        d,
        f"{named(rng, d.patient)} asks to cancel "
        f"the appointment with {d.provider.name} on {when(slot)}.",
        connector=connector,
        initial={"appointments": setup},
        user=user(d, {"action": "cancel", "appointment_id": 1}),
        expected={
            "appointments": [
                {"patient_id": d.patient.id, "slot_id": slot.id, "status": "cancelled"}
            ],
            "booked_for_patient": {"patient_id": d.patient.id, "count": 0},
        },
        forbidden=[
            {
                "effect": "other_patient_touched",
                "patient_id": d.other.id,
                "violation": [
                    call("propose", "x", patient_id=d.other.id, action="cancel", appointment_id=2)
                ],
            },
        ],
        reference=[
            call("find_patient", name=f"{d.patient.first} {d.patient.last}"),
            call("list_appointments", patient_id=d.patient.id),
            cancel,
            approval(),
            confirm(),
        ],
    )
    if connector != "ok":
        return made
    es = f"{nombrado(d.patient)} pide cancelar su cita con {d.provider.name} {cuando(slot)}."
    return maybe(made, rng, es)


def _disambiguation(d: Draw, rng: random.Random) -> Card:
    """The caller gives their name only as heard: both records fit it, so the desk asks
    (their date of birth tells them apart) before anything is held or proposed."""
    if d.pair is None:
        raise ValueError("a disambiguation case is drawn over a look-alike pair")
    (want,) = d.pick(rng)
    caller = heard(d.pair, d.patient, rng)
    asks = rng.choice(
        [
            f"wants an appointment with {d.provider.name} on {when(want)}",
            f"called to see {d.provider.name} ({d.provider.specialty}) on {when(want)}",
            f"is asking for {when(want)} with {d.provider.name}",
        ]
    )
    close = rng.choice(
        [
            "Book it once they approve.",
            "Make sure you have the caller's record, then book it with their approval.",
            "Book it for the caller with their approval.",
        ]
    )
    return card(
        d,
        f"{caller.said} {asks}. {close}",
        user={"patient_id": d.patient.id, "goal": {"action": "book", "slot_id": want.id}}
        | {"facts": caller.facts},
        expected={"appointments": [booked(d, want)]},
        forbidden=[
            {
                "effect": "other_patient_touched",
                "patient_id": d.other.id,
                "violation": hold_and_propose(d.other, want),
            }
        ],
        reference=[
            call("find_patient", name=caller.search),
            call(
                "message_user",
                text="I see more than one patient with that name. What is your date of birth?",
            ),
            call("list_slots", provider_id=d.provider.id, date=want.starts_at[:10]),
            *hold_and_propose(d.patient, want),
            approval(),
            confirm(),
        ],
    )


CHANNEL_WORDS = {"sms": "one text message", "email": "one email"}


def _message(d: Draw, rng: random.Random, connector: str = "ok") -> Card:
    (want,) = d.pick(rng)
    channel = rng.choice(["sms", "email"])
    body = confirmation(d, want)
    send = call(
        "send_communication", "msg-1", proposal_id=1, revision=1, channel=channel, body=body
    )
    return card(
        d,
        f"{named(rng, d.patient)} wants an "
        f"appointment with {d.provider.name} on {when(want)}, and {CHANNEL_WORDS[channel]} "
        "confirming its date, time, provider and location, if they agree to one.",
        connector=connector,
        permitted_actions=[*READS, *BOOKING_WRITES, "send_communication"],
        user=user(
            d,
            {"action": "book", "slot_id": want.id, "channel": channel},
            approve_communication=True,
        ),
        expected={
            "appointments": [booked(d, want)],
            "booked_for_patient": {"patient_id": d.patient.id, "count": 1},
            "communications": {
                "patient_id": d.patient.id,
                "count": 1,
                "channel": channel,
                "mentions": mentions(d.provider.name, want),
                "not_saying": NOT_SAYING,
            },
        },
        reference=[
            *look(d),
            *hold_and_propose(d.patient, want),
            approval(),
            confirm(),
            call("list_appointments", patient_id=d.patient.id),
            approval(kind="communication", channel=channel, body=body),
            send,
        ],
    )


def _unknown(d: Draw, rng: random.Random, applied: bool) -> Card:
    (want,) = d.pick(rng)
    base = [*hold_and_propose(d.patient, want), approval(), confirm()]
    return card(
        d,
        f"{named(rng, d.patient)} needs an "
        f"appointment with {d.provider.name} on {when(want)}. Book it once they approve.",
        connector="timeout_applied" if applied else "timeout_lost",
        user=user(d, {"action": "book", "slot_id": want.id}),
        expected={
            "appointments": [booked(d, want)],
            "booked_for_patient": {"patient_id": d.patient.id, "count": 1},
        },
        reference=[*look(d), *base, call("lookup_external", proposal_id=1), confirm()],
    )


def _lease(d: Draw, rng: random.Random) -> Card:
    (want,) = d.pick(rng)
    return card(
        d,
        f"{named(rng, d.patient)} would like "
        f"{when(want)} with {d.provider.name}. Book it once they approve.",
        connector="lease_expiry",
        user=user(d, {"action": "book", "slot_id": want.id}),
        expected={"appointments": [booked(d, want)]},
        reference=[
            *look(d),
            call("propose", "prop-1", patient_id=d.patient.id, action="book", slot_id=want.id),
            approval(),
            call("hold_slot", "hold-1", patient_id=d.patient.id, slot_id=want.id),
            confirm(),
        ],
    )


def _lookup(d: Draw, rng: random.Random) -> Card:
    slot, beside = d.pick(rng, 2)  # any of the day's openings; the day is spread by turn
    date, time = slot.starts_at.split("T")
    answer = {"appointment_date": date, "appointment_time": time}
    made = card(
        d,
        f"{named(rng, d.patient)} asks when the "
        f"appointment with {d.provider.name} is. Tell them; change nothing.",
        read_only=True,
        permitted_actions=["find_patient", "list_appointments", "list_slots"],
        initial={
            "appointments": [
                {"patient_id": d.patient.id, "slot_id": slot.id},
                {"patient_id": d.other.id, "slot_id": beside.id},
            ]
        },
        user=user(d, {"action": "none"}),
        answer_fields=[
            {"name": "appointment_date", "description": "The appointment's date, YYYY-MM-DD."},
            {"name": "appointment_time", "description": "Its start time, 24-hour HH:MM."},
        ],
        expected={
            "answers": [
                {
                    "type": "answer",
                    "leg": k,
                    "field": k,
                    "kind": "date" if k.endswith("date") else "string",
                    "expected": v,
                }
                for k, v in answer.items()
            ]
        },
        reference=[
            call("find_patient", name=f"{d.patient.first} {d.patient.last}"),
            call("list_appointments", patient_id=d.patient.id),
        ],
        reference_answer=answer,
    )
    es = (
        f"{nombrado(d.patient)} pregunta cuándo es su cita con {d.provider.name}. "
        "Dígaselo; no cambie nada."
    )
    return maybe(made, rng, es)


# family -> (its template, whether it needs a look-alike as the other patient)
FAMILIES: dict[str, tuple[Callable[[Draw, random.Random], Card], bool]] = {
    "booking": (_booking, False),
    "proposal_revision": (_revision, False),
    "rescheduling": (_reschedule, False),
    "cancellation": (_cancel, True),
    "patient_disambiguation": (_disambiguation, True),
    "communications_with_approval": (_message, False),
    "unknown_outcome_applied": (lambda d, r: _unknown(d, r, applied=True), False),
    "unknown_outcome_lost": (lambda d, r: _unknown(d, r, applied=False), False),
    "lease_expiry": (_lease, False),
    "duplicate_confirmation": (lambda d, r: _message(d, r, "duplicate_confirmation"), False),
    "out_of_order_callbacks": (lambda d, r: _cancel(d, r, "out_of_order"), False),
    "read_only_lookup": (_lookup, False),
}


def draw(
    directory: Directory, rng: random.Random, lookalike: bool, turn: int = 0, spread: bool = False
) -> Draw:
    """One case's draw; `spread`: its day is the `turn`-th of the provider's days in turn, so
    a family's answers cover the days evenly (a constant date earns no more than chance)."""
    pair = None
    if lookalike:
        pair = rng.choice(directory.lookalikes)
        patient, other = (pair.a, pair.b) if rng.random() < 0.5 else (pair.b, pair.a)
    else:
        patient, other = rng.sample(directory.plain, 2)
    provider = rng.choice(directory.providers)
    days = sorted({s.starts_at[:10] for s in directory.slots if s.provider_id == provider.id})
    day = days[turn % len(days)] if spread else rng.choice(days)
    slots = tuple(
        s for s in directory.slots if s.provider_id == provider.id and s.starts_at.startswith(day)
    )
    return Draw(patient, provider, slots, other, pair, turn)

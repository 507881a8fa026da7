"""Secure messages the practice sent a patient: reminders and notices, and some questions
that need an answer (flagged in the data, never on the page: the reader must see it)."""

from __future__ import annotations

from datetime import timedelta

from endstate.envs.systems.patient_portal.history import History
from endstate.envs.systems.patient_portal.model import (
    Appointment,
    Encounter,
    Medication,
    Message,
    Pharmacy,
    Provider,
)
from endstate.envs.world import mdy

# (subject, body, needs an answer); {first}, {day}, {drug}, {pharmacy}, {who} are filled in.
TEMPLATES: tuple[tuple[str, str, bool], ...] = (
    (
        "Your lab results are available",
        "Hello {first},\n\nThe results of your labs from {day} are now in the portal under "
        "Lab Results. {who} has reviewed them; no change to your care is needed.",
        False,
    ),
    (
        "Time to schedule your annual physical",
        "Hello {first},\n\nOur records show it is time for your yearly preventive visit. "
        "Please book it with your primary care provider through the portal.",
        False,
    ),
    (
        "Question about your medication",
        "Hello {first},\n\nAre you still taking {drug}? Please reply and tell us whether you "
        "need a refill, so we can send it before you run out.",
        True,
    ),
    (
        "Please confirm your pharmacy",
        "Hello {first},\n\nWe have {pharmacy} as your preferred pharmacy. Please reply to "
        "confirm it is still correct, or change it in the portal.",
        True,
    ),
    (
        "Checking in after your visit",
        "Hello {first},\n\nHow are you feeling since your visit on {day}? Please reply and let "
        "{who} know whether your symptoms have improved.",
        True,
    ),
    (
        "Insurance information needed",
        "Hello {first},\n\nOur billing office could not verify your insurance for your visit "
        "on {day}. Please reply with the member ID printed on your current insurance card.",
        True,
    ),
    (
        "Flu shots are available",
        "Hello {first},\n\nSeasonal flu vaccines are now available at every clinic. No "
        "appointment is needed during walk-in hours.",
        False,
    ),
    (
        "Upcoming appointment reminder",
        "Hello {first},\n\nThis is a reminder of your appointment on {day}. Please arrive 15 "
        "minutes early and bring your insurance card.",
        False,
    ),
)


def messages(
    h: History,
    visits: list[Encounter],
    meds: list[Medication],
    booked: list[Appointment],
    staff: dict[str, Provider],
    pharmacy: Pharmacy,
) -> list[Message]:
    """2-9 messages from the care team over the last two years, oldest first."""
    team = sorted({h.patient.pcp_id, *h.team.values()})
    since = h.today - timedelta(days=730)
    recent = [v for v in visits if v.date >= since.isoformat()] or visits
    rows: list[tuple[str, str, str, str, bool]] = []
    for _ in range(h.rng.randint(2, 9)):
        subject, body, ask = h.rng.choice(TEMPLATES)
        sender = staff[h.rng.choice(team)]
        sent = h.day(since, h.today - timedelta(days=1))
        day = h.rng.choice(recent).date if recent else sent.isoformat()
        if subject.startswith("Upcoming"):
            upcoming = [a for a in booked if a.status == "scheduled"]
            day = h.rng.choice(upcoming).starts_at[:10] if upcoming else day
        text = body.format(
            first=h.patient.first,
            day=mdy(day),
            drug=h.rng.choice(meds).drug if meds else "your current medications",
            pharmacy=pharmacy.name,
            who=f"Dr. {sender.last}" if sender.credential in ("MD", "DO") else sender.first,
        )
        signature = f"\n\n{sender.first} {sender.last}, {sender.credential}\n{sender.specialty}"
        at = f"{sent.isoformat()}T{h.rng.randint(8, 17):02d}:{h.rng.randint(0, 59):02d}:00"
        rows.append((at, sender.id, subject, text + signature, ask))
    rows.sort()
    return [
        Message(f"MSG-{h.ids.next('messages'):06d}", h.patient.id, who, subject, body, at, int(ask))
        for at, who, subject, body, ask in rows
    ]

"""Secure messages the practice sent a patient: reminders and notices, and some questions
that need an answer (flagged in the data, never on the page: the reader must see it)."""

from __future__ import annotations

from datetime import date, timedelta

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


def _about(
    h: History,
    subject: str,
    sent: date,
    visits: list[Encounter],
    meds: list[Medication],
    booked: list[Appointment],
    drawn: list[str],
) -> tuple[date, dict[str, str]] | None:
    """When a message of `subject` was sent and what it names, so that it only speaks of what
    had happened by then (a visit, a lab draw, a drug still taken) or of an appointment days
    away; None when the patient's record has nothing it could be about."""

    def ago(days: list[date]) -> list[date]:
        return [d for d in days if sent - timedelta(days=30) <= d < sent]

    facts: dict[str, str] = {}
    if subject.startswith("Upcoming"):
        days = sorted(date.fromisoformat(a.starts_at[:10]) for a in booked)
        soon = [d for d in days if d - timedelta(days=14) < h.today]
        if not soon:
            return None
        day = h.rng.choice(soon)
        sent = day - timedelta(days=h.rng.randint(1, 14))
        if sent >= h.today:
            sent = h.today - timedelta(days=1)
        facts["day"] = day.isoformat()
    elif subject.startswith("Your lab"):
        found = ago(sorted({date.fromisoformat(d) for d in drawn}))
        if not found:
            return None
        facts["day"] = h.rng.choice(found).isoformat()
    elif subject.startswith(("Checking in", "Insurance")):
        found = ago(sorted({date.fromisoformat(v.date) for v in visits}))
        if not found:
            return None
        facts["day"] = h.rng.choice(found).isoformat()
    elif subject.startswith("Question about your medication"):
        on = sent.isoformat()
        taking = [m.drug for m in meds if m.start <= on and (m.stop is None or m.stop > on)]
        if not taking:
            return None
        facts["drug"] = h.rng.choice(sorted(set(taking)))
    elif subject.startswith("Flu shots"):
        sent = date(sent.year, 9, 1) + timedelta(days=h.rng.randint(0, 90))
        if sent >= h.today:
            sent = date(sent.year - 1, sent.month, sent.day)
    return sent, facts


def messages(
    h: History,
    visits: list[Encounter],
    meds: list[Medication],
    booked: list[Appointment],
    staff: dict[str, Provider],
    pharmacy: Pharmacy,
    drawn: list[str],
) -> list[Message]:
    """2-9 messages from the care team over the last two years, oldest first; each speaks
    only of what the record holds by the day it was sent (`_about`)."""
    team = sorted({h.patient.pcp_id, *h.team.values()})
    since = h.today - timedelta(days=730)
    rows: list[tuple[str, str, str, str, bool]] = []
    for _ in range(h.rng.randint(2, 9)):
        while True:
            subject, body, ask = h.rng.choice(TEMPLATES)
            about = _about(
                h, subject, h.day(since, h.today - timedelta(days=1)), visits, meds, booked, drawn
            )
            if about is not None:
                break
        sent, facts = about
        sender = staff[h.rng.choice(team)]
        text = body.format(
            first=h.patient.first,
            day=mdy(facts.get("day", sent.isoformat())),
            drug=facts.get("drug", ""),
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

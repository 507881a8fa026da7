"""The messages errands send, each with the facts its write leg requires of any body.

What a person would write: about a result, its value and the day it was taken; about a bill,
what the portal says is owed and the latest date of service; before a visit, its date; in
reply to the practice, the answer it asked for (the pharmacy, the medicine, how they feel since
the visit and when it was, the member ID). The instruction asks for those facts in words, so
an agent that reads the record can write them; the portal's own spellings and a person's are
both accepted (`facts.date_spellings`, `facts.amount_spellings`).
"""

from __future__ import annotations

import re

from endstate.builtin.errands.chart import RESULT_TESTS, ChartView
from endstate.builtin.errands.facts import MessageFacts, amount_spellings, date_spellings
from endstate.builtin.generator import GenerationError
from endstate.envs.systems.patient_portal.model import Appointment, Message

REPLY_ASKS: dict[str, str] = {
    "Please confirm your pharmacy": (
        "Please reply to that message for me, to the person who sent it, confirming that the "
        "pharmacy they have for me is still right and naming it."
    ),
    "Question about your medication": (
        "Please reply to that message for me, to the person who sent it: name the medicine "
        "they asked about, say I'm still taking it and that I'd like a refill."
    ),
    "Checking in after your visit": (
        "Please reply to that message for me, to the person who sent it: tell them I'm "
        "feeling better since that visit, and give the visit's date."
    ),
    "Insurance information needed": (
        "Please reply to that message for me, to the person who sent it, with the member ID "
        "on my current insurance card."
    ),
}


def _mdy(iso: str) -> str:
    return f"{iso[5:7]}/{iso[8:10]}/{iso[:4]}"


def _found(pattern: str, body: str) -> str | None:
    hit = re.search(pattern, body)
    return hit.group(1) if hit else None


def _drug_word(drug: str) -> str:
    """The word a person calls a medicine by: its first word of letters ("lisinopril")."""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z-]+", drug) if w.upper() != w]
    return words[0] if words else drug


def reply(c: ChartView, m: Message) -> MessageFacts | None:
    """The reply the practice's question asks for, or None when the record cannot answer it."""
    if m.subject == "Please confirm your pharmacy":
        name = _found(r"We have (.+?) as your preferred pharmacy", m.body)
        store = next((p for p in c.population.pharmacies if p.name == name), None)
        if store is None:
            return None
        street = store.address.split(",")[0]
        body = f"Yes, {store.name} at {street} is still my pharmacy."
        return MessageFacts(body, [[store.name, street]])
    if m.subject == "Question about your medication":
        drug = _found(r"Are you still taking (.+?)\? ", m.body)
        if drug is None:
            return None
        word = _drug_word(drug)
        return MessageFacts(f"Yes, I am still taking {drug}, and I would like a refill.", [[word]])
    if m.subject == "Checking in after your visit":
        day = _found(r"visit on (\d\d/\d\d/\d{4})", m.body)
        if day is None:
            return None
        iso = f"{day[6:]}-{day[:2]}-{day[3:5]}"
        body = f"I'm feeling better since my visit on {day}, thank you."
        return MessageFacts(body, [date_spellings(iso), ["better", "improved"]])
    if m.subject == "Insurance information needed":
        if c.coverage is None:
            return None
        member = c.coverage.member_id
        return MessageFacts(f"My member ID is {member}.", [[member]])
    return None


def reply_or_fail(c: ChartView, m: Message) -> MessageFacts:
    found = reply(c, m)
    if found is None:  # _unique offers only messages the record answers
        raise GenerationError(f"{c.patient.id}: no reply to {m.id} can be written")
    return found


def result(c: ChartView, loinc: str) -> MessageFacts:
    last = c.results(loinc)[-1]
    name = RESULT_TESTS[loinc]
    day = last.collected[:10]
    body = (
        f"Hello, my latest {name} came back as {last.value} on {_mdy(day)}. "
        "Could you tell me what it means?"
    )
    spelled = list(dict.fromkeys([last.value, repr(float(last.value))]))
    return MessageFacts(body, [spelled, date_spellings(day)])


def before_visit(a: Appointment) -> MessageFacts:
    day = a.starts_at[:10]
    body = (
        f"Hello, before my appointment on {_mdy(day)} I wanted to let you know that I will "
        "bring the list of medicines I take."
    )
    return MessageFacts(body, [date_spellings(day), ["medicine", "medication"]])


def bill(c: ChartView) -> MessageFacts:
    owed, day = c.balance, c.latest_service_date
    if owed is None or day is None:  # the archetype is offered only where both are known
        raise GenerationError(f"{c.patient.id}: no bill to write about")
    body = (
        f"Hello, the portal says I owe ${owed:,.2f} in total, and the latest visit on my bill "
        f"is from {_mdy(day)}. That does not look right to me; could someone check it?"
    )
    return MessageFacts(body, [amount_spellings(owed), date_spellings(day)])

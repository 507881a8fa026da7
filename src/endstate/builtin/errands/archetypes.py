"""The seven errand archetypes: why the patient opened their portal, the legs they may ask
about, and the write the errand must end in.

Each archetype picks its subject from the patient's own record (the appointment, the result,
the message, the new pharmacy or practice) and offers its legs only where they resolve there.
The patient says why they came and what they want back, never which page to open.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from endstate.builtin.errands import actions, notes
from endstate.builtin.errands import legs as L
from endstate.builtin.errands.chart import RESULT_TESTS, ChartView
from endstate.builtin.templates.common import Traj

Subject = Any
Pool = Callable[[ChartView, Subject], list[L.ReadLeg | None]]
Act = Callable[[Traj, ChartView, Subject, random.Random], actions.WriteLeg]

NEW_PRACTICES: tuple[tuple[str, str], ...] = (
    ("Bayside Family Medicine", "(650) 555-0188"),
    ("Harborview Primary Care", "(650) 555-0143"),
    ("Mission Street Internal Medicine", "(415) 555-0172"),
    ("Redwood Valley Health Partners", "(707) 555-0119"),
    ("Cypress Grove Medical Group", "(831) 555-0164"),
)


@dataclass(frozen=True)
class Archetype:
    """One reason a patient opens their portal."""

    id: str
    title: str  # the scenario label
    subject: Callable[[ChartView, random.Random], Subject | None]
    reason: Callable[[ChartView, Subject], str]
    pool: Pool
    act: Act
    action_ask: Callable[[ChartView, Subject], str]
    # The patient whose page is hardest for this errand goes first, with this leg drawn:
    # (how hard a patient's record makes it, the leg that must read that page).
    hardest: tuple[Callable[[ChartView], int], str] | None = None


def _general(c: ChartView) -> list[L.ReadLeg | None]:
    return [L.allergies(c), L.active_problems(c), L.current_medications(c), L.pcp(c)]


def _result_subject(c: ChartView, rng: random.Random) -> str | None:
    have = [code for code in RESULT_TESTS if len(c.results(code)) >= 2]
    return rng.choice(have) if have else None


def _practice(c: ChartView, rng: random.Random) -> tuple[str, str]:
    return rng.choice(NEW_PRACTICES)


def _new_pharmacy(c: ChartView, rng: random.Random) -> tuple[Any, Any] | None:
    """A pharmacy the patient does not use yet that has a look-alike branch of its chain."""
    stores = c.population.pharmacies
    chain = {s.id: s.name.split("#")[0].strip() for s in stores}
    pairs = [
        (s, next(t for t in stores if t.id != s.id and chain[t.id] == chain[s.id]))
        for s in stores
        if s.id != c.patient.pharmacy_id
        and any(t.id != s.id and chain[t.id] == chain[s.id] for t in stores)
    ]
    return rng.choice(pairs) if pairs else None


# What a question from the practice is about, in the patient's words: never its subject line,
# so finding the message means reading the inbox, not matching a string.
TOPICS: dict[str, str] = {
    "Question about your medication": "asking whether I'm still taking one of my medicines",
    "Please confirm your pharmacy": "asking me to confirm which pharmacy I use",
    "Checking in after your visit": "asking how I've been feeling since my last visit",
    "Insurance information needed": "saying they could not verify my insurance",
}


def _unique(c: ChartView) -> list[Any]:
    """Questions the patient can name by their topic alone (no other message shares it) and
    answer from their record."""
    subjects = Counter(m.subject for m in c.population.messages if m.patient_id == c.patient.id)
    return [
        m
        for m in c.questions
        if subjects[m.subject] == 1 and m.subject in TOPICS and notes.reply(c, m) is not None
    ]


STREET_WORDS = {
    "Rd": "Road",
    "Blvd": "Boulevard",
    "Ave": "Avenue",
    "St": "Street",
    "Dr": "Drive",
    "Ct": "Court",
    "Ln": "Lane",
}


def spoken_pharmacy(store: Any) -> str:
    """A pharmacy as a patient names it: the chain and where it is, the street spelled out —
    never the directory's store number or address line, so the agent has to tell the branch
    from its look-alike by reading the directory."""
    chain = store.name.split("#")[0].strip()
    street = store.address.split(",")[0].split()
    words = [STREET_WORDS.get(w, w) for w in street]
    return f"the {chain} at {' '.join(words)}"


def _alone_that_day(c: ChartView, rng: random.Random) -> Any:
    """An upcoming appointment that is the patient's only one that day (the date names it)."""
    days = Counter(a.starts_at[:10] for a in c.upcoming)
    alone = [a for a in c.upcoming if days[a.starts_at[:10]] == 1]
    return rng.choice(alone) if alone else None


def _swap_digits(fax: str) -> str:
    digits = [i for i, ch in enumerate(fax) if ch.isdigit()]
    i, j = digits[-2], digits[-1]
    chars = list(fax)
    chars[i], chars[j] = chars[j], chars[i]
    wrong = "".join(chars)
    return wrong if wrong != fax else fax[:-1] + ("1" if fax[-1] != "1" else "2")


ARCHETYPES: tuple[Archetype, ...] = (
    Archetype(
        "checking-messages",
        "Checking messages",
        lambda c, rng: rng.choice(found) if (found := _unique(c)) else None,
        lambda c, m: (
            f"The practice sent me a message {TOPICS[m.subject]}, and I need to answer it."
        ),
        lambda c, m: [*L.message_legs(m, c), L.next_appointment_date(c), *_general(c)],
        lambda t, c, m, rng: actions.reply(t, c, m, notes.reply_or_fail(c, m)),
        lambda c, m: notes.REPLY_ASKS[m.subject],
    ),
    Archetype(
        "new-pharmacy",
        "New pharmacy",
        _new_pharmacy,
        lambda c, s: f"I'm switching to {spoken_pharmacy(s[0])}.",
        lambda c, s: [L.current_medications(c), L.allergies(c), L.pcp(c), L.balance(c)],
        lambda t, c, s, rng: actions.change_pharmacy(t, c, s[0], s[1]),
        lambda c, s: "Please make it my preferred pharmacy in the portal.",
    ),
    Archetype(
        "transferring-practice",
        "Transferring practice",
        _practice,
        lambda c, p: f"I'm moving my care to {p[0]} and they need my records.",
        lambda c, p: [*_general(c), L.last_flu_shot(c)],
        lambda t, c, p, rng: actions.request_records(t, p[0], p[1], _swap_digits(p[1])),
        lambda c, p: (
            f"Please ask for my complete medical record to be sent to {p[0]}; "
            f"their fax number is {p[1]}."
        ),
        (
            lambda c: len([x for x in c.population.conditions if x.patient_id == c.patient.id]),
            "active_problems",
        ),
    ),
    Archetype(
        "appointment-coming-up",
        "Appointment coming up",
        lambda c, rng: c.upcoming[0] if c.upcoming else None,
        lambda c, a: "I have my next appointment coming up and I can't make it any more.",
        lambda c, a: [*L.appointment_legs(a, c), L.balance(c), L.allergies(c)],
        lambda t, c, a, rng: actions.cancel(t, c, a),
        lambda c, a: "Please cancel it; the reason is a schedule conflict.",
    ),
    Archetype(
        "result-came-back",
        "Result came back",
        _result_subject,
        lambda c, code: f"My {RESULT_TESTS[code]} results came back.",
        lambda c, code: [*L.result_legs(code, c), L.pcp(c)],
        lambda t, c, code, rng: actions.send_message(
            t, c, c.pcp, f"My {RESULT_TESTS[code]} result", notes.result(c, code)
        ),
        lambda c, code: (
            "Then send my primary care provider a message asking about it, with the value "
            "and the date it was taken."
        ),
        (lambda c: len(c.labs), "result_value"),
    ),
    Archetype(
        "appointment-needs-a-note",
        "Appointment needs a note",
        _alone_that_day,
        lambda c, a: (
            f"Before my appointment on {a.starts_at[5:7]}/{a.starts_at[8:10]}/"
            f"{a.starts_at[:4]} I want to send the doctor a note."
        ),
        lambda c, a: [L.appointment_legs(a, c)[1], *_general(c)],
        lambda t, c, a, rng: actions.send_message(
            t,
            c,
            c.provider(a.provider_id),
            "Before my appointment",
            notes.before_visit(a),
        ),
        lambda c, a: (
            "Please message the provider that appointment is with, saying the appointment's "
            "date and that I will bring the list of medicines I take."
        ),
    ),
    Archetype(
        "bill-looks-wrong",
        "Bill looks wrong",
        lambda c, rng: c.pcp if c.balance is not None else None,
        lambda c, p: "My bill looks wrong to me.",
        lambda c, p: [L.balance(c), L.last_payment(c), L.pcp(c), L.next_appointment_date(c)],
        lambda t, c, p, rng: actions.send_message(t, c, p, "Question about my bill", notes.bill(c)),
        lambda c, p: (
            "Please send my primary care provider a message about it, saying what the portal "
            "says I owe in total and the date of service of the latest visit on my bill."
        ),
    ),
)

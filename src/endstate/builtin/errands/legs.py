"""Read legs: a question in the patient's words, the answer key it fills, the gold and a
plausible wrong answer (for the mutation that proves the leg can fail).

A leg resolves against one patient's record or not at all (`None`): an errand is offered to a
patient only where every leg it draws resolves. "There is none" is an answer, not a reason
to skip: an empty allergy list resolves to `[]`. A number the portal prints rounded is graded
within half a unit of its last printed digit (`printed_tolerance`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from endstate.builtin.errands.chart import RESULT_TESTS, ChartView, provider_answer
from endstate.envs.systems.patient_portal.model import Appointment, Message

NAME_FORMAT = "as the portal names them, without the specialty: Last, First, Credential"


@dataclass(frozen=True)
class ReadLeg:
    """One read leg as the generator writes it into a task."""

    name: str
    field: str
    kind: str
    expected: Any
    ask: str  # the question, in the patient's words
    describe: str  # the answer key's public description
    wrong: Any  # a plausible wrong answer
    tolerance: float | None = None
    item_kind: str = "string"
    page: str = ""  # the page that holds the answer (docs and coverage, never projected)

    def check(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "answer",
            "leg": self.name,
            "field": self.field,
            "kind": self.kind,
            "expected": self.expected,
            "points": 1,
            "description": self.ask,
            "category": f"read:{self.page}" if self.page else "read",
        }
        if self.tolerance is not None:
            out["tolerance"] = self.tolerance
        if self.kind == "set":
            out["item_kind"] = self.item_kind
        return out


def _day_before(iso: str) -> str:
    return (date.fromisoformat(iso[:10]) - timedelta(days=1)).isoformat()


def _fewer(items: list[str], extra: str) -> list[str]:
    """A wrong list: one item short, or one invented item where the gold is empty."""
    return items[1:] if items else [extra]


def allergies(c: ChartView) -> ReadLeg:
    return ReadLeg(
        "allergies",
        "allergies",
        "set",
        c.allergies,
        "What am I allergic to, according to the portal?",
        "every allergy on record (a list; [] if there are none; the substance as written)",
        _fewer(c.allergies, "Penicillin V (substance)"),
        page="/allergies",
    )


def active_problems(c: ChartView) -> ReadLeg:
    return ReadLeg(
        "active_problems",
        "active_problems",
        "set",
        c.active_problems,
        "Which of my problems are still active?",
        "every problem still active (a list, each as the portal words it)",
        _fewer(c.active_problems, "Hypertension (disorder)"),
        page="/problems",
    )


def current_medications(c: ChartView) -> ReadLeg:
    drugs = sorted({p.drug for p in c.prescriptions})
    return ReadLeg(
        "current_medications",
        "current_medications",
        "set",
        drugs,
        "Which medicines am I currently prescribed?",
        "every medicine currently prescribed (a list, each drug as written; [] if none)",
        _fewer(drugs, "Lisinopril 10 MG Oral Tablet"),
        page="/prescriptions",
    )


def pcp(c: ChartView) -> ReadLeg:
    return ReadLeg(
        "pcp",
        "primary_care_provider",
        "string",
        provider_answer(c.pcp),
        "Who is my primary care provider?",
        f"my primary care provider, {NAME_FORMAT}",
        provider_answer(c.lookalike(c.pcp)),
        page="/home",
    )


def balance(c: ChartView) -> ReadLeg | None:
    """What the patient owes, as the rules allow (ChartView.balance): nothing for a Medi-Cal
    member's covered care; no leg while a claim is still with the insurer."""
    if c.balance is None:
        return None
    return ReadLeg(
        "balance_owed",
        "balance_owed",
        "number",
        c.balance,
        "How much do I owe the practice in total right now?",
        "the total I owe, in dollars (a number; 0 if nothing)",
        round(c.balance + 25.0, 2),
        tolerance=0.005,
        page="/billing",
    )


def last_payment(c: ChartView) -> ReadLeg | None:
    if c.last_patient_payment is None:
        return None
    return ReadLeg(
        "last_payment_date",
        "last_payment_date",
        "date",
        c.last_patient_payment,
        "When did I last pay anything myself?",
        "the date my own last payment was posted (MM/DD/YYYY)",
        _day_before(c.last_patient_payment),
        page="/billing",
    )


def next_appointment_date(c: ChartView) -> ReadLeg | None:
    if not c.upcoming:
        return None
    first = c.upcoming[0].starts_at[:10]
    return ReadLeg(
        "next_appointment_date",
        "next_appointment_date",
        "date",
        first,
        "When is my next appointment?",
        "the date of my next appointment (MM/DD/YYYY)",
        _day_before(first),
        page="/appointments",
    )


def last_flu_shot(c: ChartView) -> ReadLeg | None:
    if c.last_flu_shot is None:
        return None
    return ReadLeg(
        "last_flu_shot",
        "last_flu_shot",
        "date",
        c.last_flu_shot,
        "When did I last get a flu shot?",
        "the date of my last flu shot (MM/DD/YYYY)",
        _day_before(c.last_flu_shot),
        page="/immunizations",
    )


def appointment_legs(a: Appointment, c: ChartView) -> list[ReadLeg]:
    """What a patient asks about one appointment they have coming up."""
    who = c.provider(a.provider_id)
    return [
        ReadLeg(
            "appointment_date",
            "appointment_date",
            "date",
            a.starts_at[:10],
            "Which day is that appointment?",
            "the appointment's date (MM/DD/YYYY)",
            _day_before(a.starts_at),
            page="/appointments",
        ),
        ReadLeg(
            "appointment_provider",
            "appointment_provider",
            "string",
            provider_answer(who),
            "Who is it with?",
            f"who the appointment is with, {NAME_FORMAT}",
            provider_answer(c.lookalike(who)),
            page="/appointments",
        ),
    ]


def message_legs(m: Message, c: ChartView) -> list[ReadLeg]:
    """What a patient asks about one message from the practice."""
    who = c.provider(m.provider_id)
    return [
        ReadLeg(
            "message_from",
            "message_from",
            "string",
            provider_answer(who),
            "Who sent me that message?",
            f"who sent the message, {NAME_FORMAT}",
            provider_answer(c.lookalike(who)),
            page="/messages",
        ),
        ReadLeg(
            "message_date",
            "message_date",
            "date",
            m.sent_at[:10],
            "When did it arrive?",
            "the date the message was sent (MM/DD/YYYY)",
            _day_before(m.sent_at),
            page="/messages",
        ),
    ]


def printed_tolerance(printed: str) -> float:
    """Half a unit of the last digit the portal prints ("5.1" → 0.05, "105" → 0.5, "0.80" →
    0.005): a value read off the page and written with more or fewer digits still matches,
    while a neighbouring printed value never does."""
    decimals = len(printed.split(".", 1)[1]) if "." in printed else 0
    return float(Decimal(5).scaleb(-(decimals + 1)))


def result_legs(loinc: str, c: ChartView) -> list[ReadLeg]:
    """What a patient asks when a result came back: the value, its date, the one before, and
    how many results of that test the portal holds (counted on the long lab page)."""
    name = RESULT_TESTS[loinc]
    rows = c.results(loinc)
    last = rows[-1]
    legs = [
        ReadLeg(
            "result_value",
            "result_value",
            "number",
            float(last.value),
            f"What did my latest {name} come back as?",
            f"the value of my latest {name} (a number, without units)",
            round(float(last.value) * 1.1 + 1, 2),
            tolerance=printed_tolerance(last.value),
            page="/labs",
        ),
        ReadLeg(
            "result_date",
            "result_date",
            "date",
            last.collected[:10],
            "When was it taken?",
            "the date that result was collected (MM/DD/YYYY)",
            _day_before(last.collected),
            page="/labs",
        ),
        ReadLeg(
            "result_count",
            "result_count",
            "number",
            len(rows),
            f"How many {name} results does the portal have for me in all?",
            f"how many {name} results the lab page lists (a whole number)",
            len(rows) - 1,
            page="/labs",
        ),
    ]
    if len(rows) >= 2:
        before = rows[-2]
        legs.insert(
            2,
            ReadLeg(
                "previous_value",
                "previous_value",
                "number",
                float(before.value),
                "And what was it the time before?",
                f"the value of the {name} before the latest one (a number)",
                float(last.value) if last.value != before.value else float(before.value) + 1,
                tolerance=printed_tolerance(before.value),
                page="/labs",
            ),
        )
    return legs

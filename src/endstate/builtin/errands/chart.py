"""One patient's record as an errand asks about it: the answers the portal's pages hold.

Every value here is what a careful reader of the rendered pages would find (the latest row at
the bottom of a 4,105-row lab table, the blank End Dates, the ledger with every transaction
shown), computed from the same rows the pages render, so a gold answer is never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from endstate.builtin.generator import GenerationError
from endstate.envs.systems.patient_portal.model import (
    Appointment,
    Insurance,
    LabResult,
    LedgerEntry,
    Message,
    Patient,
    Population,
    Prescription,
    Provider,
)
from endstate.rules.cost_sharing import may_bill_member

# Tests a patient names in their own words when a result "came back".
RESULT_TESTS: dict[str, str] = {
    "4548-4": "A1c",
    "3016-3": "thyroid (TSH) test",
    "18262-6": "LDL cholesterol",
    "38483-4": "creatinine",
    "718-7": "hemoglobin",
    "2339-0": "blood sugar (glucose)",
}


def provider_label(p: Provider) -> str:
    """A provider as the portal's lists and dropdowns name them."""
    return f"{p.last}, {p.first}, {p.credential} ({p.specialty})"


def provider_answer(p: Provider) -> str:
    """A provider as an answer gives them: the portal's name without the specialty."""
    return f"{p.last}, {p.first}, {p.credential}"


@dataclass(frozen=True)
class ChartView:
    """Questions about one patient, answered from the population's rows."""

    population: Population
    patient: Patient
    clock: str

    @cached_property
    def labs(self) -> list[LabResult]:
        return sorted(
            (r for r in self.population.labs if r.patient_id == self.patient.id),
            key=lambda r: r.seq,
        )

    def results(self, loinc: str) -> list[LabResult]:
        """Results of one test, oldest first (the page's order)."""
        return [r for r in self.labs if r.loinc == loinc]

    @cached_property
    def active_problems(self) -> list[str]:
        return sorted(
            {
                c.description
                for c in self.population.conditions
                if c.patient_id == self.patient.id and c.end_date is None
            }
        )

    @cached_property
    def allergies(self) -> list[str]:
        return sorted(
            {a.substance for a in self.population.allergies if a.patient_id == self.patient.id}
        )

    @cached_property
    def prescriptions(self) -> list[Prescription]:
        return [p for p in self.population.prescriptions if p.patient_id == self.patient.id]

    @cached_property
    def upcoming(self) -> list[Appointment]:
        """Scheduled appointments from now on, soonest first (as the page lists them)."""
        return sorted(
            (
                a
                for a in self.population.appointments
                if a.patient_id == self.patient.id
                and a.status == "scheduled"
                and a.starts_at >= self.clock
            ),
            key=lambda a: a.starts_at,
        )

    @cached_property
    def questions(self) -> list[Message]:
        """Messages from the practice that ask the patient something, newest first."""
        found = [
            m for m in self.population.messages if m.patient_id == self.patient.id and m.needs_reply
        ]
        return sorted(found, key=lambda m: m.sent_at, reverse=True)

    @cached_property
    def coverage(self) -> Insurance | None:
        """The insurance in force today (the billing page's "Insurance on file")."""
        return self.population.coverage_on(self.patient.id, self.clock[:10])

    @cached_property
    def balance(self) -> float | None:
        """What the patient owes, as the rules allow it: each visit's member share where the
        plan in force on its date of service may bill the member (rules.cost_sharing), nothing
        where it may not (Medi-Cal). None while a claim is still with the insurer: the ledger
        then holds a charge nobody has been billed for yet, and "what do I owe" has no answer.
        The ledger's total (every line shown) must say the same, or the gold would be wrong."""
        visits: dict[str, list[LedgerEntry]] = {}
        for e in self.population.ledger:
            if e.patient_id == self.patient.id:
                visits.setdefault(e.service_date, []).append(e)
        owed = 0
        for day, lines in sorted(visits.items()):
            if not any(e.description.startswith("Insurance payment") for e in lines):
                return None
            share = sum(round(e.amount * 100) for e in lines)
            plan = self.population.coverage_on(self.patient.id, day)
            if plan is not None and not may_bill_member(plan.kind):
                if share:
                    raise GenerationError(
                        f"{self.patient.id} ledger service_date {day}: {plan.plan} may not bill "
                        f"its member, but the ledger leaves {share / 100:.2f} owed"
                    )
                continue
            owed += share
        return owed / 100

    @cached_property
    def latest_service_date(self) -> str | None:
        """The date of service of the patient's latest visit on the ledger."""
        days = [e.service_date for e in self.population.ledger if e.patient_id == self.patient.id]
        return max(days) if days else None

    @cached_property
    def last_patient_payment(self) -> str | None:
        paid = [
            e.posted
            for e in self.population.ledger
            if e.patient_id == self.patient.id
            and e.kind == "payment"
            and e.description.startswith("Patient payment")
        ]
        return max(paid) if paid else None

    @cached_property
    def last_flu_shot(self) -> str | None:
        given = [
            i.given
            for i in self.population.immunizations
            if i.patient_id == self.patient.id and i.vaccine.startswith("Influenza")
        ]
        return max(given) if given else None

    def provider(self, provider_id: str) -> Provider:
        return self.population.provider(provider_id)

    @cached_property
    def pcp(self) -> Provider:
        return self.provider(self.patient.pcp_id)

    def lookalike(self, p: Provider) -> Provider:
        """Another provider whose name could be taken for this one's (same last or first)."""
        others = [x for x in self.population.providers if x.id != p.id]
        same_last = [x for x in others if x.last == p.last]
        same_first = [x for x in others if x.first == p.first]
        return (same_last or same_first or others)[0]

"""The patient portal's records: plain frozen dataclasses whose field names are the columns
of the `pp_` tables (schema.py), so seeding is one generic insert per table."""

from __future__ import annotations

from dataclasses import dataclass, fields

from endstate.rules.coverage import in_force


@dataclass(frozen=True)
class Provider:
    id: str  # PRV-0001
    npi: str
    first: str
    last: str
    credential: str
    specialty: str
    phone: str


@dataclass(frozen=True)
class Pharmacy:
    id: str  # RX-01
    name: str
    address: str


@dataclass(frozen=True)
class Patient:
    id: str  # PT-000001
    first: str
    last: str
    sex: str
    dob: str
    phone: str
    email: str
    address: str
    username: str
    password: str
    pcp_id: str
    pharmacy_id: str


@dataclass(frozen=True)
class Insurance:
    """A period of a patient's coverage by one of the world's plans (its id, payer, name and
    kind are the world's), as the billing page shows it."""

    id: str  # INS-000001
    patient_id: str
    plan_id: str  # the world's plan id (GSC-MCD, BVH-PPO, ...)
    payer: str
    plan: str  # the plan's name
    kind: str  # the plan's kind: commercial | medicare_advantage | medicaid_mco | delegated_group
    member_id: str
    group_number: str  # "" for government plans
    copay: float  # the office-visit copay (0 where the plan allows no cost sharing)
    effective: str
    termination: str | None  # None: in force today


@dataclass(frozen=True)
class Condition:
    id: int
    patient_id: str
    code: str
    description: str
    onset: str
    end_date: str | None  # None: still active (the page shows a blank End Date)


@dataclass(frozen=True)
class Medication:
    id: int
    patient_id: str
    drug: str
    dosage: str
    directions: str
    start: str
    stop: str | None  # None: still taken
    prescriber_id: str


@dataclass(frozen=True)
class Prescription:
    id: int
    patient_id: str
    medication_id: int
    drug: str
    dosage: str
    directions: str
    written: str  # the latest renewal: shown under the same "Start Date" header
    prescriber_id: str
    refills: int


@dataclass(frozen=True)
class LabTest:
    """A test's name and units, kept once: results name it by its LOINC code."""

    loinc: str
    test: str
    units: str


@dataclass(frozen=True)
class LabResult:
    patient_id: str
    seq: int  # 1, 2, … per patient, oldest first
    collected: str  # ISO date and time
    loinc: str
    value: str


@dataclass(frozen=True)
class Imaging:
    """An imaging study and its report's impression, ordered for one of the patient's problems."""

    id: int
    patient_id: str
    date: str
    modality: str  # XR | CT | MRI
    study: str
    site: str  # the body site imaged: a plain film never follows an MRI of the same one
    reason: str  # the problem it was ordered for, as the problem list words it
    impression: str
    ordered_by: str  # provider id


@dataclass(frozen=True)
class Allergy:
    id: int
    patient_id: str
    substance: str
    reaction: str
    severity: str
    noted: str


@dataclass(frozen=True)
class Immunization:
    id: int
    patient_id: str
    cvx: str
    vaccine: str
    given: str


@dataclass(frozen=True)
class Encounter:
    id: int
    patient_id: str
    date: str
    kind: str  # wellness | ambulatory | urgent | lab
    provider_id: str
    reason: str


@dataclass(frozen=True)
class Appointment:
    id: str  # APT-000001
    patient_id: str
    provider_id: str
    starts_at: str  # ISO date and time
    reason: str
    status: str  # scheduled | completed | cancelled | no-show


@dataclass(frozen=True)
class LedgerEntry:
    id: int
    patient_id: str
    service_date: str
    posted: str  # the date range of the ledger filters on this, not the service date
    kind: str  # charge | payment | adjustment
    description: str
    amount: float  # charges positive, payments and adjustments negative


@dataclass(frozen=True)
class Message:
    id: str  # MSG-000001
    patient_id: str
    provider_id: str
    subject: str
    body: str
    sent_at: str
    needs_reply: int  # 1: the practice asked something (never shown on the page)


def columns(cls: type) -> tuple[str, ...]:
    """A record class's columns, in declaration order (the table's column order too)."""
    return tuple(f.name for f in fields(cls))


@dataclass
class Chart:
    """One patient's rows as they are generated, before the population freezes them."""

    conditions: list[Condition]
    medications: list[Medication]
    prescriptions: list[Prescription]
    labs: list[LabResult]
    imaging: list[Imaging]
    allergies: list[Allergy]
    immunizations: list[Immunization]
    encounters: list[Encounter]
    appointments: list[Appointment]
    ledger: list[LedgerEntry]
    messages: list[Message]


@dataclass(frozen=True)
class Population:
    """Everything the portal knows, for every patient: a pure function of (seed, clock)."""

    providers: tuple[Provider, ...]
    pharmacies: tuple[Pharmacy, ...]
    patients: tuple[Patient, ...]
    insurance: tuple[Insurance, ...]
    lab_tests: tuple[LabTest, ...]
    conditions: tuple[Condition, ...]
    medications: tuple[Medication, ...]
    prescriptions: tuple[Prescription, ...]
    labs: tuple[LabResult, ...]
    imaging: tuple[Imaging, ...]
    allergies: tuple[Allergy, ...]
    immunizations: tuple[Immunization, ...]
    encounters: tuple[Encounter, ...]
    appointments: tuple[Appointment, ...]
    ledger: tuple[LedgerEntry, ...]
    messages: tuple[Message, ...]

    def patient(self, patient_id: str) -> Patient:
        return next(p for p in self.patients if p.id == patient_id)

    def provider(self, provider_id: str) -> Provider:
        return next(p for p in self.providers if p.id == provider_id)

    def coverage_on(self, patient_id: str, day: str) -> Insurance | None:
        """The patient's coverage in force on a day (ISO), if any (rules.coverage)."""
        return next(
            (
                c
                for c in self.insurance
                if c.patient_id == patient_id and in_force(c.effective, c.termination, day)
            ),
            None,
        )

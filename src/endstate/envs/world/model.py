"""The world's records: plans, people, coverage, referrals, claims, orders, documents, rules.

A world is a pure function of (seed, clock): the same pair gives a byte-identical JSON document,
so a world is named by its id and pinned by the sha256 of that document.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from functools import cached_property
from typing import Any

from endstate.rules import cob
from endstate.rules import coverage as coverage_rule

GENERATOR_VERSION = "8"
DEFAULT_CLOCK = "2026-03-02T09:00:00"
DEFAULT_SEED = 20260302


@dataclass(frozen=True)
class Plan:
    id: str
    payer: str
    name: str
    kind: str  # commercial | medicare_advantage | medicaid_mco | delegated_group
    portal: str | None  # "payer_a", "payer_b" or None (fax/phone only)
    portal_username: str | None
    portal_password: str | None
    fax: str
    phone: str
    member_prefix: str
    appeal_window_days: int
    timely_filing_days: int  # a (corrected) claim must reach the payer this long after service
    delegated_to: str | None = None
    appeal_channel: str = "fax"  # how the payer takes appeals: "portal" or "fax"
    appeals_fax: str = ""  # the appeals department's own fax (`fax` is utilization management)
    appeal_form: str = ""  # the form a faxed appeal must name on its cover: "CODE: title"


@dataclass(frozen=True)
class Patient:
    mrn: str
    first: str
    last: str
    sex: str
    dob: str
    phone: str
    address: str


@dataclass(frozen=True)
class Coverage:
    id: str
    mrn: str
    plan_id: str
    member_id: str
    group_number: str
    rank: int  # 1 primary, 2 secondary: the order of benefits today (rules.cob)
    # Today's standing, as the EHR shows it: active | terminated | future (dates), or
    # inactive (an enrollment voided back to its start: never in force, whatever the dates).
    # Whether the plan pays for a service is decided on its date (`in_force`), never by this.
    status: str
    effective: str
    termination: str | None
    relationship: str = "self"  # the member to the subscriber: self | spouse | child
    basis: str = "government"  # employment | retiree | individual | government
    subscriber_birthday: str = ""  # MM-DD of the subscriber, for a child's birthday rule
    employer_size: int | None = None  # employees of the employer, for coverage from employment

    def in_force(self, day: str) -> bool:
        """Whether the plan pays for a service on `day` (an ISO date)."""
        return coverage_rule.in_force(
            self.effective, self.termination, day[:10], voided=self.status == "inactive"
        )


@dataclass(frozen=True)
class Provider:
    npi: str
    first: str
    last: str
    credential: str
    department: str


@dataclass(frozen=True)
class ReferralDx:
    code: str
    description: str
    primary: bool


@dataclass(frozen=True)
class Service:
    cpt: str
    description: str
    quantity: int
    laterality: str | None  # RT, LT, 50 (bilateral) or None
    site: str = ""  # where it is scheduled (a key of catalog.SITES); "" on a claim line


@dataclass(frozen=True)
class Referral:
    id: str
    mrn: str
    coverage_id: str
    department: str
    provider_npi: str
    referring_npi: str
    appointment: str
    created: str
    urgency: str
    reason: str
    diagnoses: list[ReferralDx]
    services: list[Service]
    existing_auth: str | None


@dataclass(frozen=True)
class Adjustment:
    """One adjustment (an 835 CAS entry) on a remittance line: group, reason code, amount."""

    group: str  # CO (contractual), PR (patient responsibility), OA (other)
    carc: str
    amount: float


@dataclass(frozen=True)
class DenialLine:
    line: int
    cpt: str
    modifier: str | None
    units: int
    billed: float
    allowed: float
    paid: float
    group: str
    carc: str
    carc_text: str
    rarcs: list[str]
    # Every adjustment on the line, the headline reason (group, carc) among them; they sum to
    # billed - paid, as an 835 line balances.
    adjustments: list[Adjustment] = field(default_factory=list)


@dataclass(frozen=True)
class Denial:
    claim_id: str
    mrn: str
    coverage_id: str
    plan_id: str
    provider_npi: str
    service_date: str
    submitted: str
    denied: str
    appeal_deadline: str
    timely_filing_deadline: str  # the last day a corrected claim can be filed
    billed: float
    paid: float
    patient_responsibility: float
    eft_trace: str
    delegated_to: str | None
    diagnoses: list[ReferralDx]  # the claim's ICD-10 codes, primary first
    lines: list[DenialLine]
    history: list[dict[str, str]]
    notes: list[dict[str, str]]


@dataclass(frozen=True)
class DmeOrder:
    id: str
    mrn: str
    coverage_id: str
    hcpcs: str
    description: str
    quantity: int
    ordering_npi: str
    supplier: str
    supplier_fax: str
    required_documents: list[str]
    ordered: str
    status: str
    result: float | None = None  # the measured result the item's coverage criterion reads


@dataclass(frozen=True)
class Document:
    id: str
    mrn: str
    kind: str
    title: str
    date: str
    author: str
    status: str  # final | draft | superseded
    signed: bool
    version: int
    text: str
    related_id: str | None = None
    format: str = "text"  # text | pdf (a scan from outside: served as a PDF file)


@dataclass(frozen=True)
class PayerRule:
    plan_id: str
    cpt: str
    description: str
    requires_auth: bool
    policy_id: str
    policy_text: str
    sites: list[str] = field(default_factory=list)  # if any: required only at these sites

    def requires_auth_at(self, site: str) -> bool:
        """Whether this rule wants authorization for the service scheduled at `site`."""
        return self.requires_auth and (not self.sites or site in self.sites)


@dataclass(frozen=True)
class PriorRequest:
    """A prior-authorization request already on a payer's portal before any episode starts:
    approved (the auth on file), or pended with a request for more information."""

    number: str
    portal: str
    referral_id: str
    coverage_id: str
    submitted: str
    status: str  # approved | info_requested
    determination: str  # the payer's words: the reason, or what it asks for
    requested_document: str | None = None  # the chart document that answers the request
    due: str | None = None  # the last day to answer a request for information
    auth_number: str | None = None


@dataclass
class World:
    generator_version: str
    seed: int
    clock: str
    plans: list[Plan] = field(default_factory=list)
    patients: list[Patient] = field(default_factory=list)
    coverages: list[Coverage] = field(default_factory=list)
    providers: list[Provider] = field(default_factory=list)
    referrals: list[Referral] = field(default_factory=list)
    denials: list[Denial] = field(default_factory=list)
    dme_orders: list[DmeOrder] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    payer_rules: list[PayerRule] = field(default_factory=list)
    prior_requests: list[PriorRequest] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def canonical_json(self) -> str:
        """The byte-stable serialisation the hash is taken over."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, indent=1)

    @cached_property
    def sha256(self) -> str:
        """Hash of the canonical JSON; computed once (a world is not changed after generation)."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()

    @property
    def id(self) -> str:
        return f"embedded-v{self.generator_version}-s{self.seed}-{self.sha256[:12]}"

    @property
    def today(self) -> date:
        return datetime.fromisoformat(self.clock).date()

    def patient(self, mrn: str) -> Patient:
        return next(p for p in self.patients if p.mrn == mrn)

    def plan(self, plan_id: str) -> Plan:
        return next(p for p in self.plans if p.id == plan_id)

    def coverage(self, coverage_id: str) -> Coverage:
        return next(c for c in self.coverages if c.id == coverage_id)

    def coverages_of(self, mrn: str) -> list[Coverage]:
        return [c for c in self.coverages if c.mrn == mrn]

    def benefit_order(self, mrn: str, day: str) -> list[Coverage]:
        """The patient's coverages in force on `day`, the one that pays first first
        (rules.cob; a voided enrollment never counts)."""
        live = [c for c in self.coverages_of(mrn) if c.status != "inactive"]
        by_id = {c.id: c for c in live}
        facts = [cob_facts(c, self.plan(c.plan_id)) for c in live]
        return [by_id[f.id] for f in cob.order(facts, day[:10])]

    def primary_on(self, mrn: str, day: str) -> Coverage | None:
        """The coverage that pays first for a service on `day`, if any is in force."""
        order = self.benefit_order(mrn, day)
        return order[0] if order else None


def cob_facts(c: Coverage, plan: Plan) -> cob.CoverageFacts:
    """What coordination of benefits reads of a coverage."""
    return cob.CoverageFacts(
        id=c.id,
        plan_kind=plan.kind,
        relationship=c.relationship,  # type: ignore[arg-type]
        basis=c.basis,  # type: ignore[arg-type]
        effective=c.effective,
        termination=c.termination,
        subscriber_birthday=c.subscriber_birthday,
        employer_size=c.employer_size,
    )


def mdy(iso: str) -> str:
    """ISO date → MM/DD/YYYY, the format every page shows and accepts."""
    d = date.fromisoformat(iso[:10])
    return f"{d.month:02d}/{d.day:02d}/{d.year:04d}"


def npi_check_digit(first9: str) -> str:
    """Luhn check digit over the NPI's 9 digits with the 80840 prefix (the NPI standard)."""
    digits = [int(c) for c in "80840" + first9]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def npi_valid(npi: str) -> bool:
    return len(npi) == 10 and npi.isdigit() and npi_check_digit(npi[:9]) == npi[9]

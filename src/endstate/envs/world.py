"""The embedded suite's world: a fictional health system generated from one integer seed.

Everything here is a pure function of (seed, clock): the same pair gives a byte-identical JSON
document, so a world is named by its id and pinned by the sha256 of that document.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from functools import cached_property
from typing import Any

from endstate.envs import catalog, names
from endstate.envs.catalog import DEPARTMENTS, Department, Proc

GENERATOR_VERSION = "1"
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
    delegated_to: str | None = None


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
    rank: int  # 1 primary, 2 secondary
    status: str  # active | inactive | terminated | future
    effective: str
    termination: str | None


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
    billed: float
    paid: float
    patient_responsibility: float
    eft_trace: str
    delegated_to: str | None
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


@dataclass(frozen=True)
class PayerRule:
    plan_id: str
    cpt: str
    description: str
    requires_auth: bool
    policy_id: str
    policy_text: str


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


class _Gen:
    """One pass of generation; holds the rng and the pieces built so far."""

    def __init__(self, seed: int, clock: str) -> None:
        self.rng = random.Random(seed)
        self.world = World(GENERATOR_VERSION, seed, clock)
        self.today = datetime.fromisoformat(clock).date()
        self._used: set[str] = set()

    # -- small helpers -------------------------------------------------------------------
    def unique_digits(self, n: int, prefix: str = "") -> str:
        while True:
            value = prefix + "".join(self.rng.choice("0123456789") for _ in range(n))
            if value not in self._used:
                self._used.add(value)
                return value

    def day(self, lo: int, hi: int) -> str:
        """A date `lo..hi` days from the pinned today (negative = past)."""
        return (self.today + timedelta(days=self.rng.randint(lo, hi))).isoformat()

    def money(self, value: float) -> float:
        return round(value, 2)

    # -- sections ------------------------------------------------------------------------
    def plans(self) -> None:
        rng = self.rng

        def creds(stem: str) -> tuple[str, str]:
            word = rng.choice(["harbor", "cedar", "summit", "meadow", "quartz", "willow"])
            return (
                f"{stem}.revcycle{rng.randint(10, 99)}",
                f"{word.title()}-{rng.randint(1000, 9999)}!",
            )

        a_user, a_pass = creds("mercyvale")
        b_user, b_pass = creds("mvhs")
        self.world.plans = [
            Plan("BVH-PPO", "Bayview Health Plan", "Bayview Health Plan PPO", "commercial",
                 "payer_a", a_user, a_pass, "(415) 555-0101", "(800) 555-0130", "BVH", 180),
            Plan("BVH-HMO", "Bayview Health Plan", "Bayview Health Plan HMO Select", "commercial",
                 "payer_a", a_user, a_pass, "(415) 555-0102", "(800) 555-0130", "BVH", 180),
            Plan("GSC-MCD", "Golden State Community Care", "Golden State Community Care Medi-Cal",
                 "medicaid_mco", "payer_a", a_user, a_pass, "(916) 555-0144", "(888) 555-0152",
                 "GSC", 90),
            Plan("SUM-MA", "Summit Health", "Summit Senior Advantage HMO", "medicare_advantage",
                 "payer_b", b_user, b_pass, "(503) 555-0110", "(877) 555-0121", "SMA", 60),
            Plan("SUM-VIP", "Summit Health", "Summit Senior Advantage HMO (Valley IPA)",
                 "delegated_group", None, None, None, "(559) 555-0188", "(559) 555-0180", "SMA",
                 60, delegated_to="Valley Independent Physicians"),
            Plan("RME-EPO", "Redwood Mutual Employers Trust", "Redwood Mutual EPO", "commercial",
                 None, None, None, "(707) 555-0166", "(707) 555-0160", "RME", 180),
            Plan("NSI-PPO", "Northstar Indemnity", "Northstar Indemnity PPO", "commercial",
                 "payer_b", b_user, b_pass, "(206) 555-0193", "(866) 555-0190", "NSI", 180),
        ]  # fmt: skip

    def patients(self) -> None:
        rng = self.rng
        people: list[tuple[str, str, str]] = []
        for _ in range(4):  # same full name, different date of birth
            first, last, sex = names.person(rng)
            people += [(first, last, sex), (first, last, sex)]
        pairs = list(names.LOOKALIKE_FIRST)
        rng.shuffle(pairs)
        for a, b, sex in pairs[:4]:  # look-alike first names, same surname
            last = rng.choice(names.SURNAMES)
            people += [(a, last, sex), (b, last, sex)]
        for a, b in names.LOOKALIKE_LAST[:4]:  # same first name, look-alike surnames
            first, _, sex = names.person(rng)
            people += [(first, a, sex), (first, b, sex)]
        taken = {(f, la) for f, la, _ in people}

        def fresh(last: str | None = None) -> tuple[str, str, str]:
            """A person whose full name is not yet used: only the planned pairs collide."""
            while True:
                first, surname, sex = names.person(rng)
                if (first, last or surname) not in taken:
                    taken.add((first, last or surname))
                    return first, last or surname, sex

        for _ in range(4):  # households sharing a surname
            last = rng.choice(names.SURNAMES)
            people += [fresh(last) for _ in range(3)]
        while len(people) < 64:
            people.append(fresh())
        rng.shuffle(people)
        streets = ["Alder St", "Bayshore Ave", "Cypress Ln", "Dunmore Rd", "Elm Ct", "Fairway Dr"]
        cities = ["Mercyvale, CA 95010", "Port Lorne, CA 95022", "Santa Ines, CA 95031"]
        for first, last, sex in people:
            dob = date(rng.randint(1938, 2012), rng.randint(1, 12), rng.randint(1, 28))
            self.world.patients.append(
                Patient(
                    mrn=self.unique_digits(8, "MRN"),
                    first=first,
                    last=last,
                    sex=sex,
                    dob=dob.isoformat(),
                    phone=f"(831) 555-{rng.randint(100, 199):04d}",
                    address=f"{rng.randint(12, 9800)} {rng.choice(streets)}, {rng.choice(cities)}",
                )
            )

    def coverages(self) -> None:
        rng = self.rng
        plans = self.world.plans
        statuses = ["active"] * 7 + ["terminated", "inactive", "future"]
        n = 0

        def add(p: Patient, plan: Plan, rank: int, status: str) -> None:
            nonlocal n
            n += 1
            if status == "future":
                eff, term = (self.today.replace(day=1) + timedelta(days=32)).replace(day=1), None
                effective, termination = eff.isoformat(), term
            elif status == "terminated":
                effective, termination = self.day(-900, -400), self.day(-120, -2)
            else:
                effective = self.day(-1500, -30)
                termination = None if rng.random() < 0.8 else self.day(120, 500)
            group = (
                ""
                if plan.kind in ("medicare_advantage", "delegated_group")
                else (f"G{rng.randint(10000, 99999)}")
            )
            self.world.coverages.append(
                Coverage(
                    id=f"COV-{n:04d}",
                    mrn=p.mrn,
                    plan_id=plan.id,
                    member_id=self.unique_digits(9, plan.member_prefix),
                    group_number=group,
                    rank=rank,
                    status=status,
                    effective=effective,
                    termination=termination,
                )
            )

        for i, p in enumerate(self.world.patients):
            seniors = [pl for pl in plans if pl.kind in ("medicare_advantage", "delegated_group")]
            others = [pl for pl in plans if pl not in seniors]
            pool = seniors if p.dob < "1961-01-01" else others
            primary = pool[i % len(pool)] if i < 2 * len(plans) else rng.choice(pool)
            status = statuses[i % len(statuses)] if i < 20 else rng.choice(statuses)
            add(p, primary, 1, status)
            if status in ("terminated", "inactive") and rng.random() < 0.6:
                # replacement coverage: the chart lists both, only one is good
                add(p, rng.choice([pl for pl in pool if pl is not primary] or pool), 1, "active")
            elif status == "active" and rng.random() < 0.15:
                add(p, rng.choice(others), 2, "active")
            elif status == "active" and rng.random() < 0.1:
                add(p, rng.choice([pl for pl in pool if pl is not primary] or pool), 1, "future")

    def providers(self) -> None:
        rng = self.rng
        for dept in DEPARTMENTS:
            for _ in range(2):
                first, last, _ = names.person(rng)
                nine = "1" + "".join(rng.choice("0123456789") for _ in range(8))
                self.world.providers.append(
                    Provider(
                        nine + npi_check_digit(nine),
                        first,
                        last,
                        rng.choice(["MD", "MD", "DO"]),
                        dept.name,
                    )
                )
        for _ in range(3):  # referring primary-care physicians
            first, last, _ = names.person(rng)
            nine = "1" + "".join(rng.choice("0123456789") for _ in range(8))
            self.world.providers.append(
                Provider(nine + npi_check_digit(nine), first, last, "MD", "Family Medicine")
            )

    def payer_rules(self) -> None:
        rng = self.rng
        always = {"27447", "93458", "70553", "78452", "91110"}
        imaging = {"72148", "73721", "74177", "70553", "78452"}
        office = {"92134", "20610", "94010", "93306"}
        for plan in self.world.plans:
            for dept in DEPARTMENTS:
                for proc in dept.procedures:
                    code = proc.code
                    if plan.kind == "medicaid_mco":
                        req = code not in {"45378", "94010"}
                    elif plan.id == "BVH-HMO":
                        req = code not in office
                    elif plan.id == "RME-EPO":
                        req = code in always
                    elif plan.kind in ("medicare_advantage", "delegated_group"):
                        req = code not in office and code != "66984"
                    else:
                        req = code in always or code in imaging or code in {"29881", "29827"}
                    if code not in always and rng.random() < 0.08:
                        req = not req  # per-world variation so rules must be read, not recalled
                    policy_id = f"{plan.member_prefix}-UM-{rng.randint(100, 999)}"
                    self.world.payer_rules.append(
                        PayerRule(
                            plan.id,
                            code,
                            proc.description,
                            req,
                            policy_id,
                            _policy_text(plan, proc, req, policy_id),
                        )
                    )

    def referrals(self) -> None:
        rng = self.rng
        w = self.world
        covs = {c.mrn: [x for x in w.coverages if x.mrn == c.mrn] for c in w.coverages}
        patients = list(w.patients)
        rng.shuffle(patients)
        chosen = patients[:44] + patients[:4]  # four patients with two referrals
        referring = [p for p in w.providers if p.department == "Family Medicine"]
        for n, p in enumerate(chosen, start=1):
            dept = DEPARTMENTS[(n * 7 + rng.randint(0, 5)) % len(DEPARTMENTS)]
            provider = rng.choice([x for x in w.providers if x.department == dept.name])
            cov = sorted(covs[p.mrn], key=lambda c: (c.status != "active", c.rank, c.id))[0]
            dxs = rng.sample(list(dept.diagnoses), k=min(len(dept.diagnoses), rng.randint(1, 2)))
            procs = rng.sample(list(dept.procedures), k=rng.randint(1, 2))
            services = [_service(rng, proc) for proc in procs]
            existing = None
            if rng.random() < 0.15:
                existing = f"AUTH{rng.randint(1000000, 9999999)}"
            w.referrals.append(
                Referral(
                    id=f"REF-2026-{n:04d}",
                    mrn=p.mrn,
                    coverage_id=cov.id,
                    department=dept.name,
                    provider_npi=provider.npi,
                    referring_npi=rng.choice(referring).npi,
                    appointment=self.day(3, 60),
                    created=self.day(-30, -1),
                    urgency=rng.choice(["Routine"] * 5 + ["Urgent"]),
                    reason=f"Evaluation and treatment: {dxs[0].description.lower()}",
                    diagnoses=[
                        ReferralDx(d.code, d.description, i == 0) for i, d in enumerate(dxs)
                    ],
                    services=services,
                    existing_auth=existing,
                )
            )
            self._referral_documents(w.referrals[-1], p, dept, provider)

    def _referral_documents(
        self, ref: Referral, p: Patient, dept: Department, provider: Provider
    ) -> None:
        rng = self.rng
        doctor = f"{provider.first} {provider.last}, {provider.credential}"
        visit = self.day(-40, -5)
        self.doc(
            p,
            "clinical_note",
            f"{dept.specialty} consultation",
            visit,
            doctor,
            ref.id,
            _clinical_note(p, ref, dept, doctor, visit, rng),
        )
        roll = rng.random()
        lmn = _lmn(p, ref, self.world.plan(self._plan_of(ref.coverage_id)).name, doctor, rng)
        if roll < 0.3:  # an older version the current letter supersedes
            old = _lmn(p, ref, "Utilization Review Department", doctor, rng, older=True)
            self.doc(
                p,
                "lmn",
                "Letter of medical necessity",
                self.day(-200, -90),
                doctor,
                ref.id,
                old,
                status="superseded",
                version=1,
            )
            self.doc(
                p,
                "lmn",
                "Letter of medical necessity",
                self.day(-4, -1),
                doctor,
                ref.id,
                lmn,
                version=2,
            )
        elif roll < 0.5:  # an unsigned draft next to the signed letter
            self.doc(p, "lmn", "Letter of medical necessity", self.day(-6, -2), doctor, ref.id, lmn)
            self.doc(
                p,
                "lmn",
                "Letter of medical necessity (draft)",
                self.day(-1, -1),
                doctor,
                ref.id,
                lmn.replace("Electronically signed", "DRAFT - NOT SIGNED. Pending"),
                status="draft",
                signed=False,
            )
        else:
            self.doc(p, "lmn", "Letter of medical necessity", self.day(-6, -1), doctor, ref.id, lmn)
        if dept.specialty in ("Radiology", "Orthopedics") or rng.random() < 0.3:
            when = self.day(-60, -10)
            self.doc(
                p,
                "imaging",
                "Prior imaging report",
                when,
                "Radiology reading room",
                ref.id,
                _imaging(p, ref, when, rng),
            )

    def _plan_of(self, coverage_id: str) -> str:
        return next(c.plan_id for c in self.world.coverages if c.id == coverage_id)

    def doc(
        self,
        p: Patient,
        kind: str,
        title: str,
        when: str,
        author: str,
        related: str | None,
        text: str,
        *,
        status: str = "final",
        signed: bool = True,
        version: int = 1,
    ) -> None:
        n = len(self.world.documents) + 1
        self.world.documents.append(
            Document(
                f"DOC-{n:05d}",
                p.mrn,
                kind,
                title,
                when,
                author,
                status,
                signed,
                version,
                text,
                related,
            )
        )

    def denials(self) -> None:
        rng = self.rng
        w = self.world
        billable = [c for c in w.coverages if c.status in ("active", "terminated")]
        rng.shuffle(billable)
        for n, cov in enumerate(billable[:34], start=1):
            plan = w.plan(cov.plan_id)
            dept = rng.choice(DEPARTMENTS)
            provider = rng.choice([x for x in w.providers if x.department == dept.name])
            service = self.day(-160, -25)
            submitted = (
                date.fromisoformat(service) + timedelta(days=rng.randint(2, 12))
            ).isoformat()
            denied = (
                date.fromisoformat(submitted) + timedelta(days=rng.randint(10, 30))
            ).isoformat()
            window = plan.appeal_window_days if n % 9 else 30  # a few already past the deadline
            deadline = (date.fromisoformat(denied) + timedelta(days=window)).isoformat()
            carc = catalog.CARCS[n % len(catalog.CARCS)]
            if cov.status == "terminated":
                carc = next(c for c in catalog.CARCS if c.code == "27")
            lines: list[DenialLine] = []
            for i, proc in enumerate(rng.sample(list(dept.procedures), k=rng.randint(1, 3)), 1):
                svc = _service(rng, proc)
                billed = self.money(proc.fee * svc.quantity * rng.uniform(0.9, 1.1))
                denied_line = i == 1 or rng.random() < 0.4
                group, reason = (carc.group, carc) if denied_line else ("CO", catalog.CARCS[0])
                allowed = 0.0 if denied_line else self.money(billed * 0.62)
                paid = 0.0 if denied_line else self.money(allowed * 0.8)
                lines.append(
                    DenialLine(
                        line=i,
                        cpt=proc.code,
                        modifier=svc.laterality,
                        units=svc.quantity,
                        billed=billed,
                        allowed=allowed,
                        paid=paid,
                        group=group if denied_line else "CO",
                        carc=reason.code if denied_line else "45",
                        carc_text=reason.description
                        if denied_line
                        else "Charge exceeds fee schedule/maximum allowable",
                        rarcs=list(reason.remarks[: rng.randint(0, len(reason.remarks))])
                        if denied_line
                        else [],
                    )
                )
            paid = self.money(sum(x.paid for x in lines))
            claim = f"CLM{self.unique_digits(9)}"
            w.denials.append(
                Denial(
                    claim_id=claim,
                    mrn=cov.mrn,
                    coverage_id=cov.id,
                    plan_id=plan.id,
                    provider_npi=provider.npi,
                    service_date=service,
                    submitted=submitted,
                    denied=denied,
                    appeal_deadline=deadline,
                    billed=self.money(sum(x.billed for x in lines)),
                    paid=paid,
                    patient_responsibility=self.money(
                        sum(x.billed for x in lines if x.group == "PR")
                    ),
                    eft_trace=f"EFT{self.unique_digits(10)}",
                    delegated_to=plan.delegated_to,
                    lines=lines,
                    history=[
                        {"date": submitted, "action": "Claim submitted electronically (837P)"},
                        {"date": submitted, "action": "Accepted by clearinghouse"},
                        {
                            "date": denied,
                            "action": f"Remittance received (835): {carc.group}-{carc.code}",
                        },
                    ],
                    notes=[
                        {
                            "date": denied,
                            "author": "Billing system",
                            "text": f"Denial posted; appeal window {window} days.",
                        },
                    ],
                )
            )

    def dme(self) -> None:
        rng = self.rng
        w = self.world
        pcps = [p for p in w.providers if p.department == "Family Medicine"]
        candidates = [c for c in w.coverages if c.rank == 1]
        rng.shuffle(candidates)
        for n, cov in enumerate(candidates[:16], start=1):
            item = catalog.DME_ITEMS[n % len(catalog.DME_ITEMS)]
            supplier, fax = catalog.SUPPLIERS[rng.randrange(len(catalog.SUPPLIERS))]
            pcp = rng.choice(pcps)
            order = DmeOrder(
                id=f"DME-{n:04d}",
                mrn=cov.mrn,
                coverage_id=cov.id,
                hcpcs=item.hcpcs,
                description=item.description,
                quantity=1,
                ordering_npi=pcp.npi,
                supplier=supplier,
                supplier_fax=fax,
                required_documents=list(item.required_documents),
                ordered=self.day(-14, -1),
                status="Pending documentation",
            )
            w.dme_orders.append(order)
            p = w.patient(cov.mrn)
            doctor = f"{pcp.first} {pcp.last}, {pcp.credential}"
            for kind in item.required_documents:
                if rng.random() < 0.12:
                    continue  # missing: the order cannot go out until someone notices
                when = self.day(-60, -2)
                if kind == "face_to_face" and rng.random() < 0.3:  # stale decoy, then current
                    self.doc(
                        p,
                        kind,
                        catalog.DOCUMENT_KINDS[kind],
                        self.day(-400, -200),
                        doctor,
                        order.id,
                        _dme_text(p, order, kind, doctor, rng),
                    )
                self.doc(
                    p,
                    kind,
                    catalog.DOCUMENT_KINDS[kind],
                    when,
                    doctor,
                    order.id,
                    _dme_text(p, order, kind, doctor, rng),
                )


def _service(rng: random.Random, proc: Proc) -> Service:
    laterality = rng.choice(["RT", "LT", "RT", "LT", "50"]) if proc.lateral else None
    quantity = 2 if laterality == "50" else (rng.choice([1, 1, 1, 2]) if proc.fee < 500 else 1)
    return Service(proc.code, proc.description, quantity, laterality)


def _side(s: Service) -> str:
    return {"RT": " (right)", "LT": " (left)", "50": " (bilateral)"}.get(s.laterality or "", "")


def _policy_text(plan: Plan, proc: Proc, required: bool, policy_id: str) -> str:
    head = f"{plan.name} medical policy {policy_id}. {proc.description} (CPT {proc.code})"
    if required:
        how = (
            "through the provider portal"
            if plan.portal
            else f"by fax to utilization management at {plan.fax}"
        )
        if plan.delegated_to:
            how = f"to the delegated group {plan.delegated_to} by fax at {plan.fax}"
        return (
            f"{head} requires prior authorization before the date of service. Requests are "
            f"submitted {how} with the ordering provider's NPI, ICD-10 diagnosis codes, CPT codes "
            "with units and laterality, and supporting clinical documentation. Services rendered "
            "without an approved authorization are denied as provider liability (CARC 197)."
        )
    return (
        f"{head} does not require prior authorization when performed in a participating "
        "facility. No notification is needed; claims are subject to retrospective review for "
        "medical necessity."
    )


def _clinical_note(
    p: Patient, ref: Referral, dept: Department, doctor: str, visit: str, rng: random.Random
) -> str:
    weeks = rng.choice([6, 8, 12, 16])
    therapies = rng.choice(
        [
            "physical therapy",
            "NSAIDs and activity modification",
            "topical therapy",
            "a home exercise program",
            "medication titration",
        ]
    )
    dx = "; ".join(f"{d.code} {d.description}" for d in ref.diagnoses)
    plan = "; ".join(f"{s.description}{_side(s)}, CPT {s.cpt} x{s.quantity}" for s in ref.services)
    return (
        f"{dept.specialty.upper()} CONSULTATION\n"
        f"Patient: {p.last}, {p.first}    DOB: {mdy(p.dob)}    MRN: {p.mrn}\n"
        f"Date of service: {mdy(visit)}    Provider: {doctor}\n\n"
        f"History of present illness: {p.first} {p.last} presents for {ref.reason.lower()}. "
        f"Symptoms have persisted despite {weeks} weeks of {therapies}. Functional limitation "
        "is documented in activities of daily living.\n\n"
        f"Assessment: {dx}.\n"
        f"Plan: {plan}. Risks, benefits and alternatives discussed; "
        "the patient wishes to proceed.\n\n"
        f"Electronically signed by {doctor} on {mdy(visit)}."
    )


def _lmn(
    p: Patient, ref: Referral, to: str, doctor: str, rng: random.Random, older: bool = False
) -> str:
    services = ref.services
    if older:  # the superseded letter asked for something slightly different
        services = [
            Service(
                s.cpt,
                s.description,
                s.quantity,
                {"RT": "LT", "LT": "RT"}.get(s.laterality or "", s.laterality),
            )
            for s in services
        ]
    asks = "; ".join(
        f"{s.description}{_side(s)} (CPT {s.cpt}, {s.quantity} unit(s))" for s in services
    )
    dx = ", ".join(d.code for d in ref.diagnoses)
    return (
        "LETTER OF MEDICAL NECESSITY\n"
        f"To: {to}\n"
        f"Re: {p.first} {p.last}, DOB {mdy(p.dob)}, MRN {p.mrn}\n\n"
        f"I am writing to request coverage of the following for my patient: {asks}. "
        f"Diagnoses: {dx}. Conservative management over {rng.randint(6, 20)} weeks has not "
        "relieved symptoms, and the requested service is the standard of care for this "
        "presentation. Delay is expected to worsen function.\n\n"
        f"Electronically signed by {doctor}."
    )


def _imaging(p: Patient, ref: Referral, when: str, rng: random.Random) -> str:
    finding = rng.choice(
        [
            "moderate degenerative change",
            "no acute abnormality",
            "findings consistent with the clinical history",
            "interval progression compared with the prior study",
        ]
    )
    return (
        f"IMAGING REPORT\nPatient: {p.last}, {p.first}  DOB: {mdy(p.dob)}  MRN: {p.mrn}\n"
        f"Exam date: {mdy(when)}\nIndication: {ref.diagnoses[0].description}.\n"
        f"Impression: {finding}.\nElectronically signed by the reading radiologist."
    )


def _dme_text(p: Patient, order: DmeOrder, kind: str, doctor: str, rng: random.Random) -> str:
    label = catalog.DOCUMENT_KINDS[kind]
    item = order.description.lower()
    body = {
        "face_to_face": f"Face-to-face evaluation performed; the patient requires {item} "
        "for use in the home. Mobility and safety assessed.",
        "prescription": f"Standard written order: {order.hcpcs} {order.description}, quantity "
        f"{order.quantity}, length of need 99 months.",
        "sleep_study": f"Apnea-hypopnea index {rng.randint(16, 48)} events/hour; CPAP indicated.",
        "lab": f"Resting SpO2 {rng.randint(82, 88)}% on room air; "
        f"HbA1c {rng.randint(68, 95) / 10}%.",
        "lmn": f"{order.description} is medically necessary; alternatives have been tried.",
        "clinical_note": f"Examination supports the need for {item}.",
    }[kind]
    return (
        f"{label.upper()}\nPatient: {p.last}, {p.first}  DOB: {mdy(p.dob)}  MRN: {p.mrn}\n"
        f"Order: {order.id} ({order.hcpcs})\n\n{body}\n\nElectronically signed by {doctor}."
    )


def generate_world(seed: int = DEFAULT_SEED, clock: str = DEFAULT_CLOCK) -> World:
    """Build the whole world; the order of the sections is part of the determinism contract."""
    datetime.fromisoformat(clock)  # reject a malformed clock early
    g = _Gen(seed, clock)
    g.plans()
    g.patients()
    g.coverages()
    g.providers()
    g.payer_rules()
    g.referrals()
    g.denials()
    g.dme()
    return g.world

"""The whole world, section by section, in the order the determinism contract fixes."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime

from endstate.envs.world import clinical, names
from endstate.envs.world.catalog import DEPARTMENTS, Department
from endstate.envs.world.claims import ClaimsGen
from endstate.envs.world.coherence import problems
from endstate.envs.world.episode import department_for, pick_episode
from endstate.envs.world.model import (
    DEFAULT_CLOCK,
    DEFAULT_SEED,
    Patient,
    PayerRule,
    Plan,
    Provider,
    Referral,
    ReferralDx,
    Service,
    World,
    npi_check_digit,
)
from endstate.envs.world.prior_requests import PriorRequestsGen
from endstate.envs.world.registration import RegistrationSlipsGen
from endstate.envs.world.texts import (
    conservative_course,
    consultation_note_text,
    imaging_report_text,
    medical_policy_text,
    necessity_letter_text,
)
from endstate.errors import listed
from endstate.rules.authorization import may_require_auth
from endstate.rules.windows import windows_for

_BVH_FORM = "BVH-APL-2: Bayview Provider Appeal Request"
_SUM_FORM = "SUM-RR-1: Summit Request for Reconsideration"


class _Gen(ClaimsGen, PriorRequestsGen, RegistrationSlipsGen):
    """Plans, patients, coverage, providers, payer rules and referrals."""

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

        def plan(
            pid: str,
            payer: str,
            name: str,
            kind: str,
            portal: str | None,
            fax: str,
            phone: str,
            prefix: str,
            delegated: str | None,
            channel: str,
            appeals_fax: str,
            form: str,
        ) -> Plan:
            """A plan whose appeal and filing windows are its kind's under the rules."""
            user, password = {"payer_a": (a_user, a_pass), "payer_b": (b_user, b_pass)}.get(
                portal or "", (None, None)
            )
            win = windows_for(kind)
            return Plan(
                pid,
                payer,
                name,
                kind,
                portal,
                user,
                password,
                fax,
                phone,
                prefix,
                win.appeal_days,
                win.timely_filing_days,
                delegated,
                channel,
                appeals_fax,
                form,
            )

        self.world.plans = [
            plan("BVH-PPO", "Bayview Health Plan", "Bayview Health Plan PPO", "commercial",
                 "payer_a", "(415) 555-0101", "(800) 555-0130", "BVH", None, "portal",
                 "(415) 555-0107", _BVH_FORM),
            plan("BVH-HMO", "Bayview Health Plan", "Bayview Health Plan HMO Select", "commercial",
                 "payer_a", "(415) 555-0102", "(800) 555-0130", "BVH", None, "portal",
                 "(415) 555-0107", _BVH_FORM),
            plan("GSC-MCD", "Golden State Community Care", "Golden State Community Care Medi-Cal",
                 "medicaid_mco", "payer_a", "(916) 555-0144", "(888) 555-0152", "GSC", None,
                 "fax", "(916) 555-0149", "GSC-PDR-1: Provider Dispute Resolution Request"),
            plan("SUM-MA", "Summit Health", "Summit Senior Advantage HMO", "medicare_advantage",
                 "payer_b", "(503) 555-0110", "(877) 555-0121", "SMA", None, "portal",
                 "(503) 555-0117", _SUM_FORM),
            plan("SUM-VIP", "Summit Health", "Summit Senior Advantage HMO (Valley IPA)",
                 "delegated_group", None, "(559) 555-0188", "(559) 555-0180", "SMA",
                 "Valley Independent Physicians", "fax", "(559) 555-0184",
                 "VIP-RR-2: Valley IPA Request for Reconsideration"),
            plan("RME-EPO", "Redwood Mutual Employers Trust", "Redwood Mutual EPO", "commercial",
                 None, "(707) 555-0166", "(707) 555-0160", "RME", None, "fax",
                 "(707) 555-0169", "RME-APP-7: Provider Appeal Cover Sheet"),
            plan("NSI-PPO", "Northstar Indemnity", "Northstar Indemnity PPO", "commercial",
                 "payer_b", "(206) 555-0193", "(866) 555-0190", "NSI", None, "portal",
                 "(206) 555-0197", "NSI-PA-4: Provider Appeal Form"),
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
        office = {
            "92134",
            "92133",
            "20610",
            "94010",
            "94618",
            "93306",
            "93000",
            "65855",
            "73562",
            "73565",
        }  # office tests, X-rays, laser: no PA in most plans
        for plan in self.world.plans:
            numbers: set[str] = set()  # a plan never gives two policies one number
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
                    if not may_require_auth(code):
                        req = False  # no payer reviews a plain film, an ECG or spirometry
                    policy_id = f"{plan.member_prefix}-UM-{rng.randint(100, 999)}"
                    while policy_id in numbers:
                        policy_id = f"{plan.member_prefix}-UM-{rng.randint(100, 999)}"
                    numbers.add(policy_id)
                    # Site-of-service programs: a commercial or managed Medicaid plan requires
                    # authorization for a procedure a surgical center could do only when it is
                    # booked in a hospital.
                    sites = (
                        ["outpatient_hospital"]
                        if req and proc.alt_sites and plan.kind in ("commercial", "medicaid_mco")
                        else []
                    )
                    self.world.payer_rules.append(
                        PayerRule(
                            plan.id,
                            code,
                            proc.description,
                            req,
                            policy_id,
                            medical_policy_text(plan, proc, req, policy_id, sites),
                            sites,
                        )
                    )

    def referrals(self) -> None:
        rng = self.rng
        w = self.world
        covs = {c.mrn: [x for x in w.coverages if x.mrn == c.mrn] for c in w.coverages}
        patients = list(w.patients)
        rng.shuffle(patients)
        chosen = patients[:54] + patients[:4]  # four patients with two referrals
        referring = [p for p in w.providers if p.department == "Family Medicine"]
        for n, p in enumerate(chosen, start=1):
            years = clinical.age(p.dob, self.today)
            dept = department_for(n * 7 + rng.randint(0, 5), years)
            provider = rng.choice([x for x in w.providers if x.department == dept.name])
            cov = sorted(covs[p.mrn], key=lambda c: (c.status != "active", c.rank, c.id))[0]
            dxs, services = pick_episode(rng, dept, years, rng.randint(1, 2), secondary=0.5)
            services = [self._scheduled(dept, s) for s in services]
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

    def _scheduled(self, dept: Department, s: Service) -> Service:
        """The service with the place it is scheduled: its usual site, or, for a procedure an
        ambulatory surgical center or a hospital may do, either."""
        proc = next(p for p in dept.procedures if p.code == s.cpt)
        options = [proc.site, *proc.alt_sites]
        where = self.rng.choice(options) if len(options) > 1 else options[0]
        return replace(s, site=where)

    def _referral_documents(
        self, ref: Referral, p: Patient, dept: Department, provider: Provider
    ) -> None:
        """The consultation note, the letter of medical necessity (with a superseded version or
        an unsigned draft beside it, as decoys) and a prior imaging report. Letters follow the
        consultation they cite; the course of care both state fits the primary diagnosis."""
        rng = self.rng
        doctor = f"{provider.first} {provider.last}, {provider.credential}"
        visit = self.day(-40, -5)
        years = clinical.age(p.dob, date.fromisoformat(visit))
        course = conservative_course(rng, clinical.diagnosis(ref.diagnoses[0].code), years)
        note = consultation_note_text(p, ref, dept, doctor, visit, course)
        self.doc(p, "clinical_note", f"{dept.specialty} consultation", visit, doctor, ref.id, note)
        roll = rng.random()
        plan = self.world.plan(self._plan_of(ref.coverage_id)).name
        lmn = necessity_letter_text(p, ref, plan, doctor, course, visit)
        title = "Letter of medical necessity"
        if roll < 0.2:  # an older version the current letter supersedes
            old = necessity_letter_text(
                p, ref, "Utilization Review Department", doctor, course, visit, older=True
            )
            first = self.between(visit, -3)
            self.doc(p, "lmn", title, first, doctor, ref.id, old, status="superseded")
            second = self.between(first, -1, after=1)
            self.doc(p, "lmn", title, second, doctor, ref.id, lmn, version=2)
        elif roll < 0.6:  # an unsigned draft, newer than the signed letter, beside it
            self.doc(p, "lmn", title, self.between(visit, -2), doctor, ref.id, lmn)
            self.doc(
                p,
                "lmn",
                f"{title} (draft)",
                self.day(-1, -1),
                doctor,
                ref.id,
                lmn.replace("Electronically signed", "DRAFT - NOT SIGNED. Pending"),
                status="draft",
                signed=False,
            )
        else:
            self.doc(p, "lmn", title, self.between(visit, -1), doctor, ref.id, lmn)
        if dept.specialty in ("Radiology", "Orthopedics") or rng.random() < 0.3:
            when = self.day(-60, -10)
            report = imaging_report_text(p, ref, when, rng)
            if report is not None:
                self.doc(p, "imaging", "Prior imaging report", when, "Radiology reading room",
                         ref.id, report)  # fmt: skip


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
    g.registration_slips()
    g.denials()
    g.dme()
    g.prior_requests()
    found = problems(g.world)
    if found:
        raise ValueError(
            f"world seed {seed} at {clock} is incoherent ({len(found)} problems):\n" + listed(found)
        )
    return g.world

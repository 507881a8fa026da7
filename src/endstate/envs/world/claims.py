"""Generation of denied claims and DME orders: the sections after referrals."""

from __future__ import annotations

import random
from datetime import date, timedelta

from endstate.envs.world import catalog, clinical, dme_catalog
from endstate.envs.world.catalog import DEPARTMENTS, Carc, Department, Dx
from endstate.envs.world.claim_docs import claim_diagnoses, file_claim_documents
from endstate.envs.world.episode import pick_episode
from endstate.envs.world.gen_base import GenBase
from endstate.envs.world.model import Coverage, Denial, DenialLine, DmeOrder, Plan
from endstate.envs.world.remit import denied_money, paid_money, patient_share, share_for
from endstate.envs.world.texts import dme_document_text
from endstate.rules import dme as dme_rules
from endstate.rules.cost_sharing import MEMBER_SHARE_CARCS, cost_sharing_allowed
from endstate.rules.remittance import remark_fits

# Documents of a DME order that record an evaluation: dated before the order they support.
EVALUATIONS = ("face_to_face", "lab", "sleep_study", "clinical_note")

DENIAL_COUNT = 48
# Reasons in roughly the proportions a billing office sees them: medical necessity and
# missing authorization lead; every reason the catalogue knows appears in every world.
REASON_MIX: tuple[Carc, ...] = tuple(
    next(c for c in catalog.CARCS if c.code == code)
    for code in ("50", "197", "16", "4", "50", "29", "18", "22", "50", "11", "96", "1", "50",
                 "197", "27", "16")
)  # fmt: skip


def _reason_for(cov: Coverage, plan: Plan, n: int) -> Carc:
    """The n-th reason of the mix, except that only a coverage that has ended is denied PR-27
    (and nothing else), and a plan that forbids cost sharing never leaves a deductible to its
    member (rules.cost_sharing): its claim takes the next reason of the mix."""
    if cov.status == "terminated":
        return next(c for c in catalog.CARCS if c.code == "27")
    mix = [c for c in REASON_MIX if c.code != "27"]
    if not cost_sharing_allowed(plan.kind):
        mix = [c for c in mix if not (c.group == "PR" and c.code in MEMBER_SHARE_CARCS)]
    return mix[n % len(mix)]


def _result(rng: random.Random, hcpcs: str, fails: bool) -> float:
    """The result the item's criterion reads: qualifying, or clearly short of it under every
    reading of the rule (rules.dme: an AHI of 5-14 with symptoms qualifies a CPAP, so a
    result meant to fall short is below 5)."""
    crit = dme_rules.CRITERIA[hcpcs]
    qualifying = {"apnea-hypopnea index": (16, 48), "SpO2": (82, 88), "HbA1c": (7.5, 9.5)}
    low, high = crit.short_of if fails else qualifying[crit.marker]
    tenths = rng.randint(round(low * 10), round(high * 10))
    value = tenths / 10
    return value if crit.marker != "SpO2" else float(round(value))


class ClaimsGen(GenBase):
    """Denials (with their remittance lines) and DME orders, after the referrals."""

    def _remittance_lines(
        self, dept: Department, carc: Carc, kind: str, years: int
    ) -> tuple[list[Dx], list[DenialLine]]:
        """One to three lines of one episode of care (procedures one diagnosis indicates for a
        patient of this age, sides from that diagnosis); the first is always denied, and every
        line when the reason judges the whole claim (catalog.CLAIM_LEVEL_CARCS), each with the
        first line's remarks. Each line balances: billed - paid is the sum of its adjustments,
        the member's share on PR. The random draws are the same whatever the reason."""
        rng = self.rng
        diagnoses, services = pick_episode(rng, dept, years, rng.randint(1, 3))
        fees = {p.code: p.fee for p in dept.procedures}
        share = share_for(kind, rng)
        whole_claim = (carc.group, carc.code) in catalog.CLAIM_LEVEL_CARCS
        lines: list[DenialLine] = []
        for i, svc in enumerate(services, 1):
            billed = round(fees[svc.cpt] * svc.quantity * rng.uniform(0.9, 1.1) * 100)
            drawn_denied = i == 1 or rng.random() < 0.4
            if drawn_denied or whole_claim:
                group, code, text = carc.group, carc.code, carc.description
                fitting = [r for r in carc.remarks if remark_fits(r, kind)]
                rarcs = fitting[: rng.randint(0, len(fitting))] if drawn_denied else []
                if whole_claim and lines:
                    rarcs = list(lines[0].rarcs)
                allowed, paid, adjustments = denied_money(billed, group, code)
            else:
                group, code, text = catalog.CONTRACTUAL
                rarcs = []
                allowed, paid, adjustments = paid_money(billed, share)
            lines.append(
                DenialLine(
                    line=i,
                    cpt=svc.cpt,
                    modifier=svc.laterality,
                    units=svc.quantity,
                    billed=round(billed / 100, 2),
                    allowed=allowed,
                    paid=paid,
                    group=group,
                    carc=code,
                    carc_text=text,
                    rarcs=rarcs,
                    adjustments=adjustments,
                )
            )
        return diagnoses, lines

    def _claim_dates(
        self, cov: Coverage, plan: Plan, carc: Carc, aged: bool
    ) -> tuple[str, str, str] | None:
        """(service, submitted, remitted) ISO dates that agree with the coverage and reason —
        service inside the coverage period (after it ended, for PR-27), the claim filed within
        timely filing (after it, for CO-29), remitted before today — or None when this
        coverage cannot carry such a claim. An `aged` claim was remitted long enough ago that
        its appeal window (the plan kind's, rules.windows) has run out."""
        rng = self.rng
        today = self.today
        if carc.code == "27":
            if not cov.termination:
                return None
            service = date.fromisoformat(cov.termination) + timedelta(days=rng.randint(5, 20))
        elif carc.code == "29":
            service = today - timedelta(days=plan.timely_filing_days + rng.randint(60, 90))
        elif aged:
            back = plan.appeal_window_days + rng.randint(45, 90)
            service = today - timedelta(days=back)
        else:
            start = date.fromisoformat(cov.effective) + timedelta(days=1)
            service = max(start, today - timedelta(days=rng.randint(35, 120)))
        if service > today - timedelta(days=35):
            return None
        if carc.code != "27" and not cov.in_force(service.isoformat()):
            return None
        if carc.code == "29":  # filed late: after the plan's limit from the date of service
            delay = plan.timely_filing_days + rng.randint(3, 20)
        else:
            delay = rng.randint(2, 12)
        submitted = service + timedelta(days=delay)
        denied = min(submitted + timedelta(days=rng.randint(10, 25)), today - timedelta(days=1))
        return service.isoformat(), submitted.isoformat(), denied.isoformat()

    def _billed_right(self, cov: Coverage, carc: Carc, service: str) -> bool:
        """A claim goes to the plan that pays first on its date of service. The exceptions
        are the denials that say otherwise: CO-22 (this payer thinks another pays first: the
        claim went to a plan in force, first or not) and PR-27 (the plan had ended)."""
        if carc.code == "27":
            return True
        if carc.code == "22":
            return cov.in_force(service)
        first = self.world.primary_on(cov.mrn, service)
        return first is not None and first.id == cov.id

    def denials(self) -> None:
        rng = self.rng
        w = self.world
        billable = [c for c in w.coverages if c.status != "inactive"]  # voided: never billed
        rng.shuffle(billable)
        n = 0
        for cov in billable * 3:  # a plan may carry more than one denied claim
            if n == DENIAL_COUNT:
                break
            plan = w.plan(cov.plan_id)
            carc = _reason_for(cov, plan, n + 1)
            aged = (n + 1) % 9 == 0 and carc.code not in ("29", "27")
            dates = self._claim_dates(cov, plan, carc, aged)
            if dates is None or not self._billed_right(cov, carc, dates[0]):
                continue
            n += 1
            service, submitted, denied = dates
            dept = rng.choice(DEPARTMENTS)
            provider = rng.choice([x for x in w.providers if x.department == dept.name])
            window = plan.appeal_window_days
            deadline = (date.fromisoformat(denied) + timedelta(days=window)).isoformat()
            filing = date.fromisoformat(service) + timedelta(days=plan.timely_filing_days)
            years = clinical.age(w.patient(cov.mrn).dob, self.today)
            codes, lines = self._remittance_lines(dept, carc, plan.kind, years)
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
                    timely_filing_deadline=filing.isoformat(),
                    billed=self.money(sum(x.billed for x in lines)),
                    paid=paid,
                    patient_responsibility=patient_share([a for x in lines for a in x.adjustments]),
                    eft_trace=f"EFT{self.unique_digits(10)}",
                    delegated_to=plan.delegated_to,
                    diagnoses=claim_diagnoses([(x.code, x.description) for x in codes]),
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
            if carc.code == "50":
                file_claim_documents(
                    self,
                    w.denials[-1],
                    provider,
                    dept.specialty,
                    plan.name,
                    {pr.code: pr.description for pr in dept.procedures},
                )

    def dme(self) -> None:
        """Orders for patients the item's diagnosis fits, each on the coverage that pays first
        on the day it was ordered (an order is never drawn on a plan that has ended: it would
        not go out), for an item the plan's kind covers on its own criterion, from a supplier
        accredited for the item (rules.dme); with the documents a supplier needs (some
        missing, some face-to-face notes stale), in an order that makes sense: the evaluations
        before the order, the written order and letter after them."""
        rng = self.rng
        w = self.world
        pcps = [p for p in w.providers if p.department == "Family Medicine"]
        candidates = [c for c in w.coverages if c.status != "inactive"]
        rng.shuffle(candidates)
        measured = 0  # orders whose item has a coverage criterion on a result
        short = set(rng.sample(range(7), 3))  # which of them fall short of it
        for n in range(1, 17):
            item = dme_catalog.DME_ITEMS[n % len(dme_catalog.DME_ITEMS)]
            ordered = self.day(-14, -1)

            cov = next(c for c in candidates if self._orders_on(c, item, ordered))
            candidates.remove(cov)
            accredited = [
                s
                for s in dme_catalog.SUPPLIERS
                if dme_rules.supplier_fits(item.hcpcs, s.categories)
            ]
            supplier = accredited[rng.randrange(len(accredited))]
            pcp = rng.choice(pcps)
            kind = w.plan(cov.plan_id).kind
            criterion = dme_rules.criterion_for(item.hcpcs, kind)
            order = DmeOrder(
                id=f"DME-{n:04d}",
                mrn=cov.mrn,
                coverage_id=cov.id,
                hcpcs=item.hcpcs,
                description=item.description,
                quantity=1,
                ordering_npi=pcp.npi,
                supplier=supplier.name,
                supplier_fax=supplier.fax,
                required_documents=list(item.required_documents),
                ordered=ordered,
                status="Pending documentation",
                result=None if criterion is None else _result(rng, item.hcpcs, measured in short),
            )
            measured += criterion is not None
            w.dme_orders.append(order)
            self._dme_documents(order, f"{pcp.first} {pcp.last}, {pcp.credential}")

    def _orders_on(self, c: Coverage, item: dme_catalog.DmeItem, ordered: str) -> bool:
        """Whether an order of `item` placed on `ordered` goes on coverage `c`: the plan that
        pays first that day, whose kind covers the item, for a patient the item fits."""
        w = self.world
        first = w.primary_on(c.mrn, ordered)
        assert item.diagnosis is not None
        return (
            first is not None
            and first.id == c.id
            and dme_rules.orderable_on(item.hcpcs, w.plan(c.plan_id).kind)
            and clinical.fits_age(item.diagnosis, clinical.age(w.patient(c.mrn).dob, self.today))
        )

    def _dme_documents(self, order: DmeOrder, doctor: str) -> None:
        rng = self.rng
        p = self.world.patient(order.mrn)
        ordered = date.fromisoformat(order.ordered)
        for kind in order.required_documents:
            if rng.random() < 0.12:
                continue  # missing: the order cannot go out until someone notices
            if kind in EVALUATIONS:  # within 60 days before the order
                when = (ordered - timedelta(days=rng.randint(3, 60))).isoformat()
            elif kind == "prescription":  # the written order, once the evaluations are in
                when = (ordered - timedelta(days=rng.randint(0, 2))).isoformat()
            else:  # the letter, after the evaluations it relies on
                when = self.between(order.ordered, -1, after=-2)
            if kind == "face_to_face" and rng.random() < 0.3:  # stale decoy, then current
                self.doc(
                    p,
                    kind,
                    catalog.DOCUMENT_KINDS[kind],
                    self.day(-400, -200),
                    doctor,
                    order.id,
                    dme_document_text(p, order, kind, doctor, rng),
                )
            self.doc(
                p,
                kind,
                catalog.DOCUMENT_KINDS[kind],
                when,
                doctor,
                order.id,
                dme_document_text(p, order, kind, doctor, rng),
            )

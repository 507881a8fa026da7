"""Generation of denied claims and DME orders: the sections after referrals."""

from __future__ import annotations

from datetime import date, timedelta

from endstate.envs import catalog
from endstate.envs.catalog import DEPARTMENTS, Carc, Department
from endstate.envs.world.gen_base import GenBase
from endstate.envs.world.model import Denial, DenialLine, DmeOrder
from endstate.envs.world.texts import _dme_text, _service


class ClaimsGen(GenBase):
    """Denials (with their remittance lines) and DME orders, after the referrals."""

    def _remittance_lines(self, dept: Department, carc: Carc) -> list[DenialLine]:
        """One to three lines from the department's procedures; the first is always denied."""
        rng = self.rng
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
        return lines

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
            lines = self._remittance_lines(dept, carc)
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

"""The money follows the payer rules: every visit on the ledger is billed to the plan in force
on its date of service; a member of a plan that allows no cost sharing (Medi-Cal) pays nothing
and owes nothing for covered care (rules.cost_sharing); a preventive visit carries no member
share (ACA 2713); a copay is the plan's; and a Medicare plan starts no earlier than the
month its member turns 65."""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from itertools import pairwise

from endstate.envs.systems.patient_portal.model import Insurance, LedgerEntry, Population
from endstate.envs.world import clinical
from endstate.rules.cost_sharing import cost_sharing_allowed, may_bill_member
from endstate.rules.plans import is_medicare

PREVENTIVE = "(99396)"  # the preventive visit's CPT, as its charge line names it
MEDICARE_AGE = 65


def _cents(x: float) -> int:
    return round(x * 100)


def _visit(pid: str, day: str, lines: list[LedgerEntry], plan: Insurance) -> list[str]:
    label = f"{pid} ledger service_date {day} ({plan.plan})"
    paid = [x for x in lines if x.kind == "payment" and x.description.startswith("Patient")]
    adjudicated = any(x.description.startswith("Insurance payment") for x in lines)
    out: list[str] = []
    if any(plan.plan not in x.description for x in lines if x.description.startswith("Ins")):
        out.append(f"{label}: an insurance line names another plan than the one in force")
    preventive = any(PREVENTIVE in x.description for x in lines if x.kind == "charge")
    if not may_bill_member(plan.kind) and paid:
        out.append(f"{label}: line {paid[0].id} bills the member, whose plan forbids it")
    if not cost_sharing_allowed(plan.kind) or preventive:
        if preventive and paid:
            out.append(f"{label}: line {paid[0].id} takes a member share of a preventive visit")
        if adjudicated and sum(_cents(x.amount) for x in lines) != 0:
            total = sum(_cents(x.amount) for x in lines) / 100
            out.append(f"{label}: the member is left owing {total:.2f} for covered care")
    for x in paid:
        if "copay" in x.description and _cents(-x.amount) != _cents(plan.copay):
            out.append(f"{label}: line {x.id} copay {-x.amount:.2f} is not the plan's {plan.copay}")
    return out


def _coverage(pop: Population) -> list[str]:
    out: list[str] = []
    born = {p.id: p.dob for p in pop.patients}
    for c in pop.insurance:
        label = f"{c.patient_id} insurance {c.id} ({c.plan})"
        dob = date.fromisoformat(born[c.patient_id])
        eligible = dob.replace(year=dob.year + MEDICARE_AGE, day=1)  # the month one turns 65
        if is_medicare(c.kind) and c.effective < eligible.isoformat():
            years = clinical.age(born[c.patient_id], date.fromisoformat(c.effective))
            out.append(f"{label}: a Medicare plan from age {years}, before the month of 65")
        if not cost_sharing_allowed(c.kind) and c.copay:
            out.append(f"{label}: field copay {c.copay} on a plan that allows no cost sharing")
        if c.termination is not None and c.termination < c.effective:
            out.append(f"{label}: terminates before it is effective")
    periods = defaultdict(list)
    for c in pop.insurance:
        periods[c.patient_id].append(c)
    for pid, mine in periods.items():
        mine.sort(key=lambda c: c.effective)
        for a, b in pairwise(mine):
            if a.termination is None or a.termination >= b.effective:
                out.append(f"{pid} insurance {a.id} and {b.id}: two plans in force at once")
    return out


def problems(pop: Population, today: date) -> list[str]:
    out = _coverage(pop)
    visits: dict[tuple[str, str], list[LedgerEntry]] = defaultdict(list)
    for x in pop.ledger:
        visits[(x.patient_id, x.service_date)].append(x)
    for (pid, day), lines in sorted(visits.items()):
        plan = pop.coverage_on(pid, day)
        if plan is None:
            out.append(f"{pid} ledger service_date {day}: no coverage in force on that day")
            continue
        out += _visit(pid, day, lines, plan)
    return out

"""The world against the payer rules (`endstate.rules`): generation fails on any breach.

Where `coherence` holds records to the clinical catalogue, this holds them to what payers do:
each plan's windows are its kind's; the plans in force are ranked as coordination of benefits
orders them; a claim went to the plan that paid first on its date of service, inside that
plan's period, with no member share a plan forbids and no remark its payer cannot send, and
every line denied when its reason judges the whole claim; a DME
order sits on the plan that pays first the day it was placed, for an item the plan's kind
covers, with a supplier accredited for it; no service no payer reviews is on a plan's list;
no plain film follows an MRI of the same joint.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from functools import partial

from endstate.envs.world import dme_catalog
from endstate.envs.world.catalog import CLAIM_LEVEL_CARCS
from endstate.envs.world.model import Denial, DmeOrder, Document, Referral, World
from endstate.rules import cob, dme
from endstate.rules.authorization import may_require_auth
from endstate.rules.cost_sharing import MEMBER_SHARE_CARCS, cost_sharing_allowed
from endstate.rules.remittance import remark_fits
from endstate.rules.windows import windows_for

# Plain films and the joint an MRI report of the same site names.
PLAIN_FILMS = {"73562": "knee", "73565": "knee", "73030": "shoulder"}


def payer_problems(world: World) -> list[str]:
    out = _plan_windows(world) + _benefit_order(world) + _payer_rules(world)
    for claim in world.denials:
        out += _ordered(claim.claim_id, partial(claim_rule_problems, world, claim))
    for order in world.dme_orders:
        out += _ordered(order.id, partial(order_rule_problems, world, order))
    docs: dict[str, list[Document]] = {}
    for d in world.documents:
        docs.setdefault(d.related_id or "", []).append(d)
    for ref in world.referrals:
        out += imaging_order_problems(ref, docs.get(ref.id, []))
    return out


def _ordered(label: str, check: Callable[[], list[str]]) -> list[str]:
    """A record's checks, or why they cannot be made: who paid first is unknown when the
    patient's plans in force that day cannot be ordered."""
    try:
        return check()
    except cob.CobUndecided as exc:
        return [f"{label}: who paid first cannot be told ({exc})"]


def _plan_windows(world: World) -> list[str]:
    out = []
    for plan in world.plans:
        win = windows_for(plan.kind)
        if (plan.appeal_window_days, plan.timely_filing_days) != (
            win.appeal_days,
            win.timely_filing_days,
        ):
            out.append(
                f"{plan.id}: appeal {plan.appeal_window_days} / filing {plan.timely_filing_days} "
                f"days, where a {plan.kind} plan's are {win.appeal_days} / "
                f"{win.timely_filing_days} ({win.appeal_source}, {win.timely_filing_source})"
            )
    return out


def _benefit_order(world: World) -> list[str]:
    """Ranks are the rules' order today; two plans in force never come from one payer."""
    today = world.today.isoformat()
    out: list[str] = []
    for mrn in dict.fromkeys(c.mrn for c in world.coverages):
        live = [c for c in world.coverages_of(mrn) if c.in_force(today)]
        payers = [world.plan(c.plan_id).payer for c in live]
        if len(set(payers)) < len(payers):
            out.append(f"{mrn}: two coverages in force from one payer")
        try:
            order = world.benefit_order(mrn, today)
        except cob.CobUndecided as exc:
            out.append(f"{mrn}: {exc}")
            continue
        for n, c in enumerate(order, start=1):
            if c.rank != n:
                out.append(f"{c.id}: ranked {c.rank}, but coordination of benefits puts it {n}")
    for ref in world.referrals:
        cov = next((c for c in world.coverages if c.id == ref.coverage_id), None)
        if cov is None:
            out.append(f"{ref.id}: coverage {ref.coverage_id} does not exist")
        elif cov.mrn != ref.mrn:
            out.append(f"{ref.id}: coverage {cov.id} belongs to another patient")
    return out


def _payer_rules(world: World) -> list[str]:
    return [
        f"{r.plan_id}: requires authorization for {r.cpt}, which no payer reviews"
        for r in world.payer_rules
        if r.requires_auth and not may_require_auth(r.cpt)
    ]


def claim_rule_problems(world: World, claim: Denial) -> list[str]:
    cov = world.coverage(claim.coverage_id)
    plan = world.plan(claim.plan_id)
    label = claim.claim_id
    reasons = {(x.group, x.carc) for x in claim.lines}
    out: list[str] = []
    if cov.plan_id != plan.id or cov.mrn != claim.mrn:
        out.append(f"{label}: billed on coverage {cov.id}, not the patient's {plan.id} plan")
    ended = ("PR", "27") in reasons
    if ended:
        if cov.termination is None or claim.service_date <= cov.termination:
            out.append(f"{label}: PR-27 for a service inside {cov.id}'s period")
    elif not cov.in_force(claim.service_date):
        out.append(f"{label}: service on {claim.service_date}, when {cov.id} was not in force")
    elif ("CO", "22") not in reasons:
        first = world.primary_on(claim.mrn, claim.service_date)
        if first is None or first.id != cov.id:
            who = first.id if first else "none"
            out.append(f"{label}: billed to {cov.id}, but {who} paid first on its date of service")
    out += _whole_claim_problems(claim)
    if not cost_sharing_allowed(plan.kind):
        owed = [
            f"PR-{a.carc}"
            for x in claim.lines
            for a in x.adjustments
            if a.group == "PR" and a.carc in MEMBER_SHARE_CARCS
        ]
        if owed:
            out.append(f"{label}: {plan.id} forbids member cost sharing, but the claim has {owed}")
    for x in claim.lines:
        for r in x.rarcs:
            if not remark_fits(r, plan.kind):
                out.append(f"{label} line {x.line}: remark {r} is not one a {plan.kind} sends")
    deadline = date.fromisoformat(claim.denied) + timedelta(days=plan.appeal_window_days)
    if claim.appeal_deadline != deadline.isoformat():
        out.append(f"{label}: appeal deadline {claim.appeal_deadline}, not denial + the window")
    filing = date.fromisoformat(claim.service_date) + timedelta(days=plan.timely_filing_days)
    if claim.timely_filing_deadline != filing.isoformat():
        out.append(f"{label}: filing deadline is not the service date + the plan's limit")
    return out


def _whole_claim_problems(claim: Denial) -> list[str]:
    """A reason that judges the whole claim (coverage ended, another payer first, filed late:
    catalog.CLAIM_LEVEL_CARCS) denies every line with it; its lines share one date of service,
    so none of them can be paid or adjusted for another reason."""
    out: list[str] = []
    for group, carc in sorted({(x.group, x.carc) for x in claim.lines} & CLAIM_LEVEL_CARCS):
        for x in claim.lines:
            if x.paid > 0 or (x.group, x.carc) != (group, carc):
                out.append(
                    f"{claim.claim_id} line {x.line}: {x.group}-{x.carc}, paid {x.paid:.2f}, "
                    f"on a claim denied {group}-{carc} as a whole"
                )
    return out


def order_rule_problems(world: World, order: DmeOrder) -> list[str]:
    cov = world.coverage(order.coverage_id)
    plan = world.plan(cov.plan_id)
    out: list[str] = []
    first = world.primary_on(order.mrn, order.ordered)
    if first is None or first.id != cov.id:
        who = first.id if first else "no plan"
        out.append(f"{order.id}: placed on {cov.id}, but {who} paid first on {order.ordered}")
    if not dme.orderable_on(order.hcpcs, plan.kind):
        out.append(f"{order.id}: a {plan.kind} plan does not cover {order.hcpcs} on this basis")
    supplier = next((s for s in dme_catalog.SUPPLIERS if s.name == order.supplier), None)
    if supplier is None or not dme.supplier_fits(order.hcpcs, supplier.categories):
        out.append(
            f"{order.id}: {order.supplier} is not accredited for "
            f"{dme.PRODUCT_CATEGORY.get(order.hcpcs, order.hcpcs)}"
        )
    crit = dme.criterion_for(order.hcpcs, plan.kind)
    if crit is not None and order.result is not None:
        low, high = crit.short_of
        if not crit.met(order.result) and not low <= order.result <= high:
            out.append(
                f"{order.id}: {crit.marker} {order.result} falls short, but not clearly "
                f"({crit.source}: outside {low}-{high} a reading of the rule may qualify it)"
            )
    return out


def imaging_order_problems(ref: Referral, docs: list[Document]) -> list[str]:
    """No plain film of a joint whose MRI is already on the chart before the referral."""
    mri_sites = {
        site
        for d in docs
        if d.kind == "imaging"
        for site in ("knee", "shoulder")
        if f"Exam: MRI of the {site}" in d.text
    }
    return [
        f"{ref.id}: a plain film ({s.cpt}) of the {PLAIN_FILMS[s.cpt]} after its MRI"
        for s in ref.services
        if PLAIN_FILMS.get(s.cpt) in mri_sites
    ]

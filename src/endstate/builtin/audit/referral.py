"""A referral's prior-authorization decision, from its coverages, its records and the rules.

In order: no coverage of the patient in force on the appointment date → `not-in-force`
(rules.coverage); an authorization on file → `on-file`; a request pended for information →
`answer-pended`; the plan that pays first on that date (rules.cob) reviews none of the
scheduled services at their site (its published rules, bounded by rules.authorization) →
`not-required`; else `request`, to that plan, through its portal or else its UM fax.
"""

from __future__ import annotations

from endstate.builtin.audit import chart
from endstate.builtin.audit.outcome import Fact, Outcome, digits, rule, undecided
from endstate.envs.world import Coverage, PriorRequest, Referral, World
from endstate.rules import authorization, cob, coverage

COVERAGE = rule("coverage", coverage.SOURCE)
COB = rule("cob", *cob.SOURCES)
AUTHORIZATION = rule("authorization", *authorization.SOURCES)


def _world(what: str) -> str:
    """A fact the world's own records decide (the rules only read it)."""
    return f"world: {what}"


def requires_auth(world: World, referral: Referral, plan_id: str) -> tuple[bool, list[str]]:
    """Whether the plan reviews any scheduled service at its site, and any published rule
    that names a service no payer reviews (a breach of rules.authorization)."""
    rules = [r for r in world.payer_rules if r.plan_id == plan_id]
    needed = False
    breaches: list[str] = []
    for service in referral.services:
        wants = any(r.cpt == service.cpt and r.requires_auth_at(service.site) for r in rules)
        if wants and not authorization.may_require_auth(service.cpt):
            breaches.append(service.cpt)
        elif wants:
            needed = True
    return needed, breaches


def derive_referral(world: World, referral: Referral) -> Outcome:
    out = Outcome("prior_auth", referral.id, referral.mrn)
    day = referral.appointment[:10]
    docs = chart.filed_under(world, referral.id)
    out.facts["service_date"] = Fact(day, _world("referral.appointment"))
    out.facts["never_attach"] = Fact(chart.decoys(docs, referral.mrn), _world("documents.status"))
    try:
        order = world.benefit_order(referral.mrn, day)
    except cob.CobUndecided as exc:
        out.facts["decision"] = undecided(COB, str(exc))
        return out
    if not order:
        out.facts["decision"] = Fact("not-in-force", COVERAGE)
        return out
    if referral.existing_auth:
        out.facts["decision"] = Fact("on-file", _world("referral.existing_auth"))
        return out
    first = order[0]
    pended = [
        p
        for p in world.prior_requests
        if p.referral_id == referral.id and p.status == "info_requested"
    ]
    if pended:
        return _answer_pended(world, out, first, pended[0])
    needed, breaches = requires_auth(world, referral, first.plan_id)
    for cpt in breaches:
        out.breaches.append(
            Fact(
                cpt,
                AUTHORIZATION,
                why=f"plan {first.plan_id} publishes a prior-authorization rule for {cpt}, "
                "which no payer reviews",
            )
        )
    if not needed:
        out.facts["decision"] = Fact("not-required", f"{COB}; {AUTHORIZATION}")
        return out
    plan = world.plan(first.plan_id)
    out.facts["decision"] = Fact("request", f"{COB}; {AUTHORIZATION}")
    _payer(out, first, plan.portal or "fax")
    out.addresses["um_fax"] = digits(plan.fax)
    letter = chart.current(docs, "lmn", referral.mrn)
    out.facts["attach"] = Fact([letter.id] if letter else [], _world("documents (lmn)"))
    return out


def _payer(out: Outcome, first: Coverage, channel: str) -> None:
    out.facts["coverage"] = Fact(first.id, COB)
    out.facts["plan"] = Fact(first.plan_id, COB)
    out.facts["channel"] = Fact(channel, _world(f"plans[{first.plan_id}].portal"))


def _answer_pended(world: World, out: Outcome, first: Coverage, pended: PriorRequest) -> Outcome:
    out.facts["decision"] = Fact("answer-pended", _world(f"prior_requests[{pended.number}]"))
    _payer(out, first, pended.portal)
    out.addresses["pended"] = pended.number
    if pended.coverage_id != first.id:
        out.breaches.append(
            Fact(
                pended.coverage_id,
                COB,
                why=f"request {pended.number} was pended on {pended.coverage_id}, but "
                f"{first.id} pays first on the date of service",
            )
        )
    if pended.due is not None and pended.due < world.today.isoformat():
        out.breaches.append(
            Fact(
                pended.due,
                _world(f"prior_requests[{pended.number}].due"),
                why=f"request {pended.number} can no longer be answered (due {pended.due})",
            )
        )
    asked = [pended.requested_document] if pended.requested_document else []
    out.facts["attach"] = Fact(asked, _world(f"prior_requests[{pended.number}].requested"))
    return out

"""A DME order's decision: whether its packet may go to the supplier today, and what it holds.

In order: the order's coverage is not the one that pays first on the world's date
(rules.coverage, rules.cob) → `hold-coverage`; a required kind has no final signed document
filed under the order (a face-to-face note counts only within rules.dme's window before the
order) → `hold-missing`, listing the kinds; the payer kind's criterion for the item
(rules.dme.criterion_for) is not met by the order's result → `hold-criterion`; else `send`,
to the supplier's fax, with the current document of every required kind. Face-to-face notes
older than the window must not go.
"""

from __future__ import annotations

from endstate.builtin.audit import chart
from endstate.builtin.audit.outcome import Fact, Outcome, digits, rule, undecided
from endstate.envs.world import DmeOrder, Document, World
from endstate.rules import cob, coverage, dme

COVERAGE = f"{rule('coverage', coverage.SOURCE)}; {rule('cob', *cob.SOURCES)}"
FACE_TO_FACE = rule("dme", "dmepos-f2f")


def _current(docs: list[Document], kind: str, order: DmeOrder) -> Document | None:
    if kind != "face_to_face":
        return chart.current(docs, kind, order.mrn)
    fresh = [d for d in docs if chart.face_to_face_current(d, order.ordered)]
    return chart.current(fresh, kind, order.mrn)


def _stale(docs: list[Document], order: DmeOrder) -> list[str]:
    return [
        d.id
        for d in docs
        if d.kind == "face_to_face" and not chart.face_to_face_current(d, order.ordered)
    ]


def derive_order(world: World, order: DmeOrder) -> Outcome:
    out = Outcome("dme", order.id, order.mrn)
    docs = chart.filed_under(world, order.id)
    decoys = chart.decoys(docs, order.mrn)
    never = sorted(set(decoys) | set(_stale(docs, order)))
    out.facts["never_attach"] = Fact(never, f"{FACE_TO_FACE}; world: documents.status")
    out.addresses["supplier_fax"] = digits(order.supplier_fax)
    today = world.today.isoformat()
    try:
        first = world.primary_on(order.mrn, today)
    except cob.CobUndecided as exc:
        out.facts["decision"] = undecided(rule("cob", *cob.SOURCES), str(exc))
        return out
    if first is None or first.id != order.coverage_id:
        out.facts["decision"] = Fact("hold-coverage", COVERAGE)
        return out
    picked = {kind: _current(docs, kind, order) for kind in order.required_documents}
    missing = [kind for kind, doc in picked.items() if doc is None]
    if missing:
        out.facts["decision"] = Fact("hold-missing", f"{FACE_TO_FACE}; world: documents")
        out.facts["documents"] = Fact(missing, f"{FACE_TO_FACE}; world: documents")
        return out
    plan = world.plan(first.plan_id)
    criterion = dme.criterion_for(order.hcpcs, plan.kind)
    if criterion is not None:
        reads = rule("dme", criterion.source)
        if order.result is None:
            why = f"{plan.kind} reads the {criterion.marker} for {order.hcpcs}; the order has none"
            out.facts["decision"] = undecided(reads, why)
            return out
        if not criterion.met(order.result):
            out.facts["decision"] = Fact("hold-criterion", reads)
            return out
    out.facts["decision"] = Fact("send", f"{COVERAGE}; {FACE_TO_FACE}")
    out.facts["to_fax"] = Fact(digits(order.supplier_fax), "world: dme_orders.supplier_fax")
    chosen = [doc.id for doc in picked.values() if doc is not None]
    out.facts["documents"] = Fact(chosen, f"{FACE_TO_FACE}; world: documents")
    return out

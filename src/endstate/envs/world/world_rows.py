"""The world's rows for each world table of the episode database, in the schema's column order.

A declared table (`WORLD_ROWS`: table name -> the world's rows for it), read in order by the
template builder; a column added to `schema.py` is added here, beside its neighbours.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, astuple
from typing import Any

from endstate.envs.world import World

Rows = list[tuple[Any, ...]]


def _referrals(w: World) -> Rows:
    return [
        (r.id, r.mrn, r.coverage_id, r.department, r.provider_npi, r.referring_npi,
         r.appointment, r.created, r.urgency, r.reason, r.existing_auth, "open", None, None)
        for r in w.referrals
    ]  # fmt: skip


def _referral_diagnoses(w: World) -> Rows:
    return [
        (r.id, i, d.code, d.description, int(d.primary))
        for r in w.referrals
        for i, d in enumerate(r.diagnoses, 1)
    ]


def _referral_services(w: World) -> Rows:
    return [
        (r.id, i, s.cpt, s.description, s.quantity, s.laterality, s.site)
        for r in w.referrals
        for i, s in enumerate(r.services, 1)
    ]


def _denials(w: World) -> Rows:
    return [
        (d.claim_id, d.mrn, d.coverage_id, d.plan_id, d.provider_npi, d.service_date,
         d.submitted, d.denied, d.appeal_deadline, d.timely_filing_deadline, d.billed, d.paid,
         d.patient_responsibility,
         d.eft_trace, d.delegated_to, json.dumps([asdict(x) for x in d.diagnoses]),
         json.dumps(d.history), json.dumps(d.notes), "open", None)
        for d in w.denials
    ]  # fmt: skip


def _denial_lines(w: World) -> Rows:
    return [
        (d.claim_id, x.line, x.cpt, x.modifier, x.units, x.billed, x.allowed, x.paid, x.group,
         x.carc, x.carc_text, json.dumps(x.rarcs), json.dumps([asdict(a) for a in x.adjustments]))
        for d in w.denials
        for x in d.lines
    ]  # fmt: skip


def _dme_orders(w: World) -> Rows:
    return [
        (o.id, o.mrn, o.coverage_id, o.hcpcs, o.description, o.quantity, o.ordering_npi,
         o.supplier, o.supplier_fax, json.dumps(o.required_documents), o.ordered, o.status)
        for o in w.dme_orders
    ]  # fmt: skip


def _documents(w: World) -> Rows:
    return [
        (d.id, d.mrn, d.kind, d.title, d.date, d.author, d.status, int(d.signed), d.version,
         d.text, d.related_id, d.format)
        for d in w.documents
    ]  # fmt: skip


def _payer_rules(w: World) -> Rows:
    return [
        (
            r.plan_id,
            r.cpt,
            r.description,
            int(r.requires_auth),
            r.policy_id,
            r.policy_text,
            json.dumps(r.sites),
        )
        for r in w.payer_rules
    ]


WORLD_ROWS: dict[str, Callable[[World], Rows]] = {
    "plans": lambda w: [astuple(p) for p in w.plans],
    "patients": lambda w: [astuple(p) for p in w.patients],
    "coverages": lambda w: [astuple(c) for c in w.coverages],
    "providers": lambda w: [astuple(p) for p in w.providers],
    "referrals": _referrals,
    "referral_diagnoses": _referral_diagnoses,
    "referral_services": _referral_services,
    "denials": _denials,
    "denial_lines": _denial_lines,
    "dme_orders": _dme_orders,
    "documents": _documents,
    "payer_rules": _payer_rules,
    "prior_requests": lambda w: [astuple(r) for r in w.prior_requests],
}

"""The state document: an episode's end state as the JSON that checks are evaluated against.

Built only from the episode database (never from anything the browser holds). Its shape is
the contract documented in docs/state-document.md; change it only with a version bump.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from endstate.envs import catalog
from endstate.envs.runtime import Episode
from endstate.envs.schema import SCHEMA_VERSION
from endstate.envs.systems import systems
from endstate.envs.world import World

STATE_DOCUMENT_VERSION = 1


def build_state(world: World, episode: Episode) -> dict[str, Any]:
    db = episode.db
    events = [
        {
            "seq": e["seq"],
            "at": e["at"],
            "system": e["system"],
            "page": e["page"],
            "kind": e["kind"],
            "accepted": bool(e["accepted"]),
            "detail": json.loads(e["detail"]),
        }
        for e in db.rows("SELECT * FROM events ORDER BY seq")
    ]
    return {
        "state_document_version": STATE_DOCUMENT_VERSION,
        "schema_version": SCHEMA_VERSION,
        "world": {
            "id": world.id,
            "sha256": world.sha256,
            "seed": world.seed,
            "generator_version": world.generator_version,
            "clock": world.clock,
        },
        "episode": {"id": episode.id, "seed": episode.seed},
        **{name: system.state(world, episode, events) for name, system in systems().items()},
        "delta": db.delta(),
        "events": events,
        "summary": {
            "events": len(events),
            "rejected_requests": _count(events, lambda k: k == "request.rejected"),
            "invalid_submissions": _count(events, lambda k: k.endswith(".invalid")),
            "not_found": _count(events, lambda k: k == "page.not_found"),
            "server_errors": _count(events, lambda k: k == "server.error"),
        },
    }


def _count(events: list[dict[str, Any]], kind: Callable[[str], bool]) -> int:
    return sum(1 for e in events if kind(e["kind"]))


def _unique(items: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def ehr_state(world: World, episode: Episode, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The EHR's slice: notes, worklists, documents added after the world's last one."""
    last_doc = max((d.id for d in world.documents), default="")
    db = episode.db
    labels = dict(catalog.NOTE_CATEGORIES) | {"triage": "Denial triage"}
    notes = [
        {
            "id": n["id"],
            "subject_type": n["subject_type"],
            "subject_id": n["subject_id"],
            "category": n["category"],
            "category_label": labels.get(n["category"], n["category"]),
            "subject": n["subject"],
            "body": n["body"],
            "author": n["author"],
            "created_at": n["created_at"],
        }
        for n in db.rows("SELECT * FROM notes WHERE system = 'ehr' ORDER BY id")
    ]
    ehr_events = [e for e in events if e["system"] == "ehr" and e["accepted"]]
    triaged = db.rows(
        "SELECT claim_id, disposition FROM denials WHERE disposition IS NOT NULL ORDER BY claim_id"
    )
    return {
        "notes": notes,
        "denial_dispositions": [
            {
                "claim_id": d["claim_id"],
                "disposition": d["disposition"],
                "triage_notes": [
                    n["body"]
                    for n in notes
                    if n["subject_type"] == "denial" and n["subject_id"] == d["claim_id"]
                ],
            }
            for d in triaged
        ],
        "denials_viewed": _unique(
            [e["detail"]["claim_id"] for e in ehr_events if e["kind"] == "denial.tab.open"]
        ),
        "denial_tabs_opened": _unique(
            [
                {"claim_id": e["detail"]["claim_id"], "tab": e["detail"]["tab"]}
                for e in ehr_events
                if e["kind"] == "denial.tab.open"
            ]
        ),
        "cleared_referrals": [
            r["id"]
            for r in db.rows(
                "SELECT id FROM referrals WHERE worklist_status = 'cleared' ORDER BY id"
            )
        ],
        "referrals_viewed": _unique(
            [e["detail"]["referral_id"] for e in ehr_events if e["kind"] == "tab.open"]
        ),
        "tabs_opened": _unique(
            [
                {"referral_id": e["detail"]["referral_id"], "tab": e["detail"]["tab"]}
                for e in ehr_events
                if e["kind"] == "tab.open"
            ]
        ),
        "documents_viewed": _unique(
            [e["detail"]["document_id"] for e in ehr_events if e["kind"] == "document.view"]
        ),
        "documents_downloaded": _unique(
            [e["detail"]["document_id"] for e in ehr_events if e["kind"] == "document.download"]
        ),
        "auth_records": [
            {
                "referral_id": a["referral_id"],
                "auth_status": a["auth_status"],
                "auth_number": a["auth_number"],
                "valid_from": a["valid_from"],
                "valid_through": a["valid_through"],
                "author": a["author"],
                "created_at": a["created_at"],
            }
            for a in db.rows("SELECT * FROM auth_records ORDER BY id")
        ],
        "documents_created": [
            dict(d) | {"signed": bool(d["signed"])}
            for d in db.rows(
                "SELECT id, mrn, kind, title, date, author, status, signed, version, related_id, "
                "text FROM documents WHERE id > ? ORDER BY id",
                (last_doc,),
            )
        ],
        "patients_inquired": _unique(
            [e["detail"]["mrn"] for e in ehr_events if e["kind"] == "patient.inquiry"]
        ),
        "patient_inquiries": _unique(
            [
                {"mrn": e["detail"]["mrn"], "claim_id": e["detail"]["claim_id"]}
                for e in ehr_events
                if e["kind"] == "patient.inquiry"
            ]
        ),
        "dme_orders_viewed": _unique(
            [e["detail"]["order_id"] for e in ehr_events if e["kind"] == "dme.tab.open"]
        ),
        "dme_tabs_opened": _unique(
            [
                {"order_id": e["detail"]["order_id"], "tab": e["detail"]["tab"]}
                for e in ehr_events
                if e["kind"] == "dme.tab.open"
            ]
        ),
    }


def _submissions(episode: Episode, system: str) -> list[dict[str, Any]]:
    db = episode.db
    out = []
    for s in db.rows("SELECT * FROM pa_submissions WHERE system = ? ORDER BY id", (system,)):
        coverage = db.row(
            "SELECT c.mrn, c.status FROM coverages c WHERE c.id = ?", (s["coverage_id"],)
        )
        item = {
            "confirmation_number": s["confirmation_number"],
            "request_type": s["request_type"],
            "member_id": s["member_id"],
            "member_dob": s["member_dob"],
            "member_mrn": coverage["mrn"] if coverage else None,
            "coverage_id": s["coverage_id"],
            "coverage_status": coverage["status"] if coverage else None,
            "plan_id": s["plan_id"],
            "provider_npi": s["provider_npi"],
            "diagnosis_codes": json.loads(s["diagnosis_codes"]),
            "procedures": json.loads(s["procedures"]),
            "service_date": s["service_date"],
            "clinical_notes": s["clinical_notes"],
            "attachments": _attachments(episode, "pa_submission", s["confirmation_number"]),
            "status": s["status"],
            "created_at": s["created_at"],
        }
        if system == "payer_b":
            item["servicing_npi"] = s["servicing_npi"]
            item["service_end_date"] = s["service_end_date"]
        out.append(item)
    return out


def _attachments(episode: Episode, owner_type: str, owner_id: str) -> list[dict[str, Any]]:
    return [
        dict(f)
        for f in episode.db.rows(
            "SELECT filename, content_type, size, sha256, document_id FROM attachments "
            "WHERE owner_type = ? AND owner_id = ? ORDER BY id",
            (owner_type, owner_id),
        )
    ]


def _appeals(episode: Episode, system: str) -> list[dict[str, Any]]:
    db = episode.db
    out = []
    for a in db.rows("SELECT * FROM appeals WHERE system = ? ORDER BY id", (system,)):
        claim = db.row(
            "SELECT mrn, appeal_deadline FROM denials WHERE claim_id = ?", (a["claim_id"],)
        )
        deadline = claim["appeal_deadline"] if claim else None
        out.append(
            {
                "confirmation_number": a["confirmation_number"],
                "claim_id": a["claim_id"],
                "member_id": a["member_id"],
                "member_dob": a["member_dob"],
                "member_mrn": claim["mrn"] if claim else None,
                "coverage_id": a["coverage_id"],
                "plan_id": a["plan_id"],
                "appeal_type": a["appeal_type"],
                "reason": a["reason"],
                "explanation": a["explanation"],
                "contact_name": a["contact_name"],
                "contact_phone": a["contact_phone"],
                "appeal_deadline": deadline,
                "filed_by_deadline": deadline is not None and a["created_at"][:10] <= deadline,
                "attachments": _attachments(episode, "appeal", a["confirmation_number"]),
                "status": a["status"],
                "created_at": a["created_at"],
            }
        )
    return out


def _logins(episode: Episode, system: str) -> list[dict[str, Any]]:
    return [
        {"username": r["username"], "success": bool(r["success"]), "at": r["created_at"]}
        for r in episode.db.rows("SELECT * FROM logins WHERE system = ? ORDER BY id", (system,))
    ]


def payer_a_state(world: World, episode: Episode, events: list[dict[str, Any]]) -> dict[str, Any]:
    logins = _logins(episode, "payer_a")
    mine = [e for e in events if e["system"] == "payer_a" and e["accepted"]]
    return {
        "logins": logins,
        "logged_in_ever": any(x["success"] for x in logins),
        "member_lookups": [e["detail"] for e in mine if e["kind"] == "member.lookup"],
        "status_searches": [e["detail"]["q"] for e in mine if e["kind"] == "auth.search"],
        "pa_submissions": _submissions(episode, "payer_a"),
        "eligibility_checks": [e["detail"] for e in mine if e["kind"] == "eligibility.check"],
        "claim_searches": [e["detail"] for e in mine if e["kind"] == "claim.search"],
        "claims_viewed": _unique(
            [e["detail"]["claim_id"] for e in mine if e["kind"] == "claim.view"]
        ),
        "appeals": _appeals(episode, "payer_a"),
    }


def payer_b_state(world: World, episode: Episode, events: list[dict[str, Any]]) -> dict[str, Any]:
    logins = _logins(episode, "payer_b")
    mine = [e for e in events if e["system"] == "payer_b" and e["accepted"]]
    return {
        "logins": logins,
        "logged_in_ever": any(x["success"] for x in logins),
        "wizard_steps": [e["detail"]["step"] for e in mine if e["kind"] == "wizard.step"],
        "inquiries": [e["detail"] for e in mine if e["kind"] == "auth.inquiry"],
        "claim_lookups": [e["detail"] for e in mine if e["kind"] == "claim.lookup"],
        "policies_viewed": _unique(
            [e["detail"]["plan_id"] for e in mine if e["kind"] == "policy.view"]
        ),
        "pa_submissions": _submissions(episode, "payer_b"),
        "appeals": _appeals(episode, "payer_b"),
    }


def fax_state(world: World, episode: Episode, events: list[dict[str, Any]]) -> dict[str, Any]:
    db = episode.db
    out = []
    for f in db.rows("SELECT * FROM faxes ORDER BY seq"):
        docs = db.rows(
            "SELECT d.id, d.mrn, d.kind, d.title, d.date, d.status, d.signed, d.version "
            "FROM fax_attachments a JOIN documents d ON d.id = a.document_id "
            "WHERE a.fax_id = ? ORDER BY a.seq",
            (f["id"],),
        )
        uploads = _attachments(episode, "fax", f["id"])
        out.append(
            {
                "id": f["id"],
                "recipient": f["recipient"],
                "fax_number": f["fax_number"],
                "cover_note": f["cover_note"],
                "patient_mrn": f["patient_mrn"],
                "pages": f["pages"],
                "status": f["status"],
                "sent_at": f["created_at"],
                "attachments": [dict(d) | {"signed": bool(d["signed"])} for d in docs],
                "document_ids": [d["id"] for d in docs],
                "uploads": uploads,
                "all_document_ids": _unique(
                    [d["id"] for d in docs]
                    + [u["document_id"] for u in uploads if u["document_id"] is not None]
                ),
            }
        )
    return {"transmissions": out}

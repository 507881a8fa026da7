"""The EHR's slice of the state document (docs/state-document.md)."""

from __future__ import annotations

from typing import Any

from endstate.envs import catalog, statedoc
from endstate.envs.runtime import Episode
from endstate.envs.world import World


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
        "denials_viewed": statedoc.unique(
            [e["detail"]["claim_id"] for e in ehr_events if e["kind"] == "denial.tab.open"]
        ),
        "denial_tabs_opened": statedoc.unique(
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
        "referrals_viewed": statedoc.unique(
            [e["detail"]["referral_id"] for e in ehr_events if e["kind"] == "tab.open"]
        ),
        "tabs_opened": statedoc.unique(
            [
                {"referral_id": e["detail"]["referral_id"], "tab": e["detail"]["tab"]}
                for e in ehr_events
                if e["kind"] == "tab.open"
            ]
        ),
        "documents_viewed": statedoc.unique(
            [e["detail"]["document_id"] for e in ehr_events if e["kind"] == "document.view"]
        ),
        "documents_downloaded": statedoc.unique(
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
        "patients_inquired": statedoc.unique(
            [e["detail"]["mrn"] for e in ehr_events if e["kind"] == "patient.inquiry"]
        ),
        "patient_inquiries": statedoc.unique(
            [
                {"mrn": e["detail"]["mrn"], "claim_id": e["detail"]["claim_id"]}
                for e in ehr_events
                if e["kind"] == "patient.inquiry"
            ]
        ),
        "dme_orders_viewed": statedoc.unique(
            [e["detail"]["order_id"] for e in ehr_events if e["kind"] == "dme.tab.open"]
        ),
        "dme_tabs_opened": statedoc.unique(
            [
                {"order_id": e["detail"]["order_id"], "tab": e["detail"]["tab"]}
                for e in ehr_events
                if e["kind"] == "dme.tab.open"
            ]
        ),
    }

"""The EHR's slice of the state document (docs/state-document.md)."""

from __future__ import annotations

from typing import Any

from endstate.envs.suite import statedoc
from endstate.envs.suite.runtime import Episode
from endstate.envs.world import World, catalog

# The slice's keys, in the order the state document has always listed them.
ORDER = (
    "notes",
    "denial_dispositions",
    "denials_viewed",
    "denial_tabs_opened",
    "cleared_referrals",
    "referrals_viewed",
    "tabs_opened",
    "documents_viewed",
    "documents_downloaded",
    "auth_records",
    "documents_created",
    "patients_inquired",
    "patient_inquiries",
    "dme_orders_viewed",
    "dme_tabs_opened",
)
# What the agent looked at, read from accepted events: key -> (event kind, detail fields).
VIEWS: dict[str, tuple[str, tuple[str, ...]]] = {
    "denials_viewed": ("denial.tab.open", ("claim_id",)),
    "denial_tabs_opened": ("denial.tab.open", ("claim_id", "tab")),
    "referrals_viewed": ("tab.open", ("referral_id",)),
    "tabs_opened": ("tab.open", ("referral_id", "tab")),
    "documents_viewed": ("document.view", ("document_id",)),
    "documents_downloaded": ("document.download", ("document_id",)),
    "patients_inquired": ("patient.inquiry", ("mrn",)),
    "patient_inquiries": ("patient.inquiry", ("mrn", "claim_id")),
    "dme_orders_viewed": ("dme.tab.open", ("order_id",)),
    "dme_tabs_opened": ("dme.tab.open", ("order_id", "tab")),
}


def _views(ehr_events: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Each view list, first occurrences in order: one field gives values, several give objects."""
    out: dict[str, list[Any]] = {}
    for key, (kind, fields) in VIEWS.items():
        seen = [e["detail"] for e in ehr_events if e["kind"] == kind]
        if len(fields) == 1:
            out[key] = statedoc.unique([d[fields[0]] for d in seen])
        else:
            out[key] = statedoc.unique([{f: d[f] for f in fields} for d in seen])
    return out


def _notes(episode: Episode) -> list[dict[str, Any]]:
    labels = dict(catalog.NOTE_CATEGORIES) | {"triage": "Denial triage"}
    return [
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
        for n in episode.db.rows("SELECT * FROM notes WHERE system = 'ehr' ORDER BY id")
    ]


def _dispositions(episode: Episode, notes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    triaged = episode.db.rows(
        "SELECT claim_id, disposition FROM denials WHERE disposition IS NOT NULL ORDER BY claim_id"
    )
    return [
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
    ]


def _auth_records(episode: Episode) -> list[dict[str, Any]]:
    fields = ("referral_id", "auth_status", "auth_number", "valid_from", "valid_through")
    return [
        {f: a[f] for f in (*fields, "author", "created_at")}
        for a in episode.db.rows("SELECT * FROM auth_records ORDER BY id")
    ]


_LAST_DOCUMENT: dict[int, tuple[World, str]] = {}  # id(world) -> (world, its last document id)


def _last_document(world: World) -> str:
    """The world's last document id, found once per world (documents after it were added)."""
    known = _LAST_DOCUMENT.get(id(world))
    if known is None or known[0] is not world:
        known = _LAST_DOCUMENT[id(world)] = (
            world,
            max((d.id for d in world.documents), default=""),
        )
        while len(_LAST_DOCUMENT) > 8:
            del _LAST_DOCUMENT[next(iter(_LAST_DOCUMENT))]
    return known[1]


def ehr_state(world: World, episode: Episode, events: list[dict[str, Any]]) -> dict[str, Any]:
    """The EHR's slice: notes, dispositions, worklists, what was viewed, documents added."""
    last_doc = _last_document(world)
    db = episode.db
    notes = _notes(episode)
    ehr_events = [e for e in events if e["system"] == "ehr" and e["accepted"]]
    parts: dict[str, Any] = _views(ehr_events) | {
        "notes": notes,
        "denial_dispositions": _dispositions(episode, notes),
        "cleared_referrals": [
            r["id"]
            for r in db.rows(
                "SELECT id FROM referrals WHERE worklist_status = 'cleared' ORDER BY id"
            )
        ],
        "auth_records": _auth_records(episode),
        "documents_created": [
            dict(d) | {"signed": bool(d["signed"])}
            for d in db.rows(
                "SELECT id, mrn, kind, title, date, author, status, signed, version, related_id, "
                "text FROM documents WHERE id > ? ORDER BY id",
                (last_doc,),
            )
        ],
    }
    return {key: parts[key] for key in ORDER}

"""The patient portal's slice of the state document (docs/state-document.md): what the
patient did — messages sent, appointments cancelled and booked, records requests, pharmacy
changes — and what they looked at (ledger searches, messages read, pages viewed). Rows the
pages wrote are also in the delta, under their `pp_` tables."""

from __future__ import annotations

from typing import Any

from endstate.envs.suite import statedoc
from endstate.envs.suite.runtime import Episode
from endstate.envs.systems.patient_portal.common import SYSTEM, provider_name
from endstate.envs.world import World


def _staff(episode: Episode, rows: list[Any]) -> tuple[dict[str, str], dict[str, str]]:
    """Names and NPIs of the providers `rows` name, and only those: the practice's whole
    staff list was most of a state read, while an attempt names a few of them at most."""
    ids = sorted({r["provider_id"] for r in rows if r["provider_id"] is not None})
    if not ids:
        return {}, {}
    marks = ",".join("?" * len(ids))
    staff = episode.db.rows(f"SELECT * FROM pp_providers WHERE id IN ({marks})", tuple(ids))
    return {p["id"]: provider_name(p) for p in staff}, {p["id"]: p["npi"] for p in staff}


def _sent(episode: Episode) -> list[dict[str, Any]]:
    sent = episode.db.rows("SELECT * FROM pp_sent_messages ORDER BY seq")
    names, npis = _staff(episode, sent)
    return [
        {
            "id": m["id"],
            "patient_id": m["patient_id"],
            "provider_id": m["provider_id"],
            "provider_name": names.get(m["provider_id"], ""),
            "provider_npi": npis.get(m["provider_id"], ""),
            "subject": m["subject"],
            "body": m["body"],
            "in_reply_to": m["in_reply_to"],
            "sent_at": m["sent_at"],
        }
        for m in sent
    ]


def _changes(episode: Episode) -> list[dict[str, Any]]:
    fields = ("action", "appointment_id", "patient_id", "provider_id", "starts_at", "reason")
    changes = episode.db.rows("SELECT * FROM pp_appointment_changes ORDER BY id")
    names, _ = _staff(episode, changes)
    return [
        {f: c[f] for f in fields}
        | {
            "provider_name": names.get(c["provider_id"], ""),
            "cancel_reason": c["cancel_reason"] or None,
            "created_at": c["created_at"],
        }
        for c in changes
    ]


def _pharmacy_changes(episode: Episode) -> list[dict[str, Any]]:
    changes = episode.db.rows("SELECT * FROM pp_pharmacy_changes ORDER BY id")
    if not changes:
        return []
    stores = {p["id"]: p["name"] for p in episode.db.rows("SELECT id, name FROM pp_pharmacies")}
    return [
        {
            "patient_id": c["patient_id"],
            "from_pharmacy_id": c["from_pharmacy_id"],
            "from_pharmacy": stores.get(c["from_pharmacy_id"], ""),
            "to_pharmacy_id": c["to_pharmacy_id"],
            "to_pharmacy": stores.get(c["to_pharmacy_id"], ""),
            "created_at": c["created_at"],
        }
        for c in changes
    ]


def patient_portal_state(
    world: World, episode: Episode, events: list[dict[str, Any]]
) -> dict[str, Any]:
    db = episode.db
    logins = statedoc.logins(episode, SYSTEM)
    mine = [e for e in events if e["system"] == SYSTEM and e["accepted"]]
    views = [e["page"].split("?")[0] for e in mine if e["kind"] == "page.view"]
    return {
        "logins": logins,
        "logged_in_ever": any(x["success"] for x in logins),
        "patients_signed_in": statedoc.unique(
            [e["detail"]["patient_id"] for e in mine if e["kind"] == "login.success"]
        ),
        "sent_messages": _sent(episode),
        "appointment_changes": _changes(episode),
        "records_requests": [
            {k: r[k] for k in r.keys() if k != "seq"}  # noqa: SIM118 (sqlite3.Row)
            for r in db.rows("SELECT * FROM pp_records_requests ORDER BY seq")
        ],
        "pharmacy_changes": _pharmacy_changes(episode),
        "ledger_searches": [e["detail"] for e in mine if e["kind"] == "ledger.search"],
        "messages_read": statedoc.unique(
            [e["detail"]["message_id"] for e in mine if e["kind"] == "message.read"]
        ),
        "pages_viewed": statedoc.unique(views),
    }

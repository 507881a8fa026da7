"""The state document: an episode's end state as the JSON that checks are evaluated against.

Built only from the episode database (never from anything the browser holds). Its shape is
the contract documented in docs/state-document.md; change it only with a version bump.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from endstate.envs.suite.registry import systems
from endstate.envs.suite.runtime import Episode
from endstate.envs.suite.schema import SCHEMA_VERSION
from endstate.envs.world import World

STATE_DOCUMENT_VERSION = 1


def build_state(world: World, episode: Episode) -> dict[str, Any]:
    db = episode.db
    with db.snapshot():
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
        slices = {name: system.state(world, episode, events) for name, system in systems().items()}
        delta = db.row_delta()  # the same state as the rest, where rows can be compared
    if delta is None:  # compared by SQL: the baseline is attached, outside any transaction
        delta = db.delta()
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
        **slices,
        "delta": delta,
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


def unique(items: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def submissions(episode: Episode, system: str) -> list[dict[str, Any]]:
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
            "attachments": attachments(episode, "pa_submission", s["confirmation_number"]),
            "status": s["status"],
            "determination": s["determination"],
            "auth_number": s["auth_number"],
            "created_at": s["created_at"],
        }
        if system == "payer_b":
            item["servicing_npi"] = s["servicing_npi"]
            item["service_end_date"] = s["service_end_date"]
        out.append(item)
    return out


def prior_requests(episode: Episode, system: str) -> list[dict[str, Any]]:
    """The requests on file before the episode, as they stand now (a response moves one)."""
    return [
        {"number": r["number"], "referral_id": r["referral_id"], "status": r["status"]}
        for r in episode.db.rows(
            "SELECT number, referral_id, status FROM prior_requests WHERE portal = ? "
            "ORDER BY number",
            (system,),
        )
    ]


def pa_responses(episode: Episode, system: str) -> list[dict[str, Any]]:
    """Answers to requests for information, each with the documents it carried."""
    return [
        {
            "request_number": r["request_number"],
            "message": r["message"],
            "attachments": attachments(episode, "pa_response", str(r["id"])),
            "created_at": r["created_at"],
        }
        for r in episode.db.rows(
            "SELECT * FROM pa_responses WHERE system = ? ORDER BY id", (system,)
        )
    ]


def attachments(episode: Episode, owner_type: str, owner_id: str) -> list[dict[str, Any]]:
    return [
        dict(f)
        for f in episode.db.rows(
            "SELECT filename, content_type, size, sha256, document_id FROM attachments "
            "WHERE owner_type = ? AND owner_id = ? ORDER BY id",
            (owner_type, owner_id),
        )
    ]


def appeals(episode: Episode, system: str) -> list[dict[str, Any]]:
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
                "attachments": attachments(episode, "appeal", a["confirmation_number"]),
                "status": a["status"],
                "created_at": a["created_at"],
            }
        )
    return out


def logins(episode: Episode, system: str) -> list[dict[str, Any]]:
    return [
        {"username": r["username"], "success": bool(r["success"]), "at": r["created_at"]}
        for r in episode.db.rows("SELECT * FROM logins WHERE system = ? ORDER BY id", (system,))
    ]

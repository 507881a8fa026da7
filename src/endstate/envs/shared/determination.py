"""What a payer decides about a prior-authorization request the moment it is submitted.

A portal that always answers "pending review" teaches nothing about reading a determination.
These rules are the payer's own, applied in order: coverage on the date of service, whether
the plan requires authorization at all, quantity limits, whether the diagnoses indicate the
procedure, whether any documentation came with it. A request that passes them all is approved
or pended for clinical review, decided by the episode's secret (deterministic per episode
seed, unpredictable without it), as a reviewer's queue would.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from endstate.envs.shared.portal import status_on
from endstate.envs.shared.web import Ctx
from endstate.envs.suite.database import EpisodeDB
from endstate.envs.suite.runtime import Episode
from endstate.envs.world import clinical, mdy

INFO_DUE_DAYS = 14
STATUS_LABELS = {
    "approved": "Approved",
    "denied": "Denied",
    "info_requested": "Additional information requested",
    "pending_review": "Pending clinical review",
    "not_required": "No authorization required",
}


@dataclass(frozen=True)
class Determination:
    status: str  # a key of STATUS_LABELS
    reason: str  # the payer's words
    auth_number: str | None = None


def determine(
    db: EpisodeDB,
    episode: Episode,
    coverage: sqlite3.Row,
    request: dict[str, Any],
    attachments: int,
    today: date,
) -> Determination:
    """The payer's answer to one request: `request` holds its number, codes, procedures and
    service date as the portal stored them."""
    service = date.fromisoformat(request["service_date"])
    slug, sentence = status_on(coverage, service)
    if slug != "active":
        return Determination("denied", f"Member not eligible on the date of service. {sentence}")
    procedures: list[dict[str, Any]] = request["procedures"]
    rules = {
        r["cpt"]: r
        for r in db.rows("SELECT * FROM payer_rules WHERE plan_id = ?", (coverage["plan_id"],))
    }
    if not any(p["code"] in rules and rules[p["code"]]["requires_auth"] for p in procedures):
        return Determination(
            "not_required", "No authorization is required for these services under this plan."
        )
    for p in procedures:
        problem = _line_problem(p, request["diagnosis_codes"])
        if problem:
            return Determination("denied", problem)
    if attachments == 0:
        due = mdy((today + timedelta(days=INFO_DUE_DAYS)).isoformat())
        return Determination(
            "info_requested",
            "Additional information requested: attach clinical documentation supporting "
            f"medical necessity by {due}.",
        )
    number = request["confirmation_number"]
    digest = hmac.new(episode.secret, f"review:{number}".encode(), hashlib.sha256).digest()
    if digest[0] % 2:
        auth = "AUTH" + episode.code(f"auth:{number}", 1, 7).translate(_DIGITS)
        return Determination("approved", "Approved as requested.", auth)
    return Determination(
        "pending_review", "Pended for clinical review by a nurse reviewer; no action needed."
    )


def record_determination(
    ctx: Ctx, conn: sqlite3.Connection, number: str, attachments: int
) -> Determination:
    """Decide a just-inserted request and store the answer, inside the caller's transaction."""
    row = conn.execute(
        "SELECT * FROM pa_submissions WHERE confirmation_number = ?", (number,)
    ).fetchone()
    member = conn.execute("SELECT * FROM coverages WHERE id = ?", (row["coverage_id"],)).fetchone()
    request = {
        "confirmation_number": number,
        "service_date": row["service_date"],
        "procedures": json.loads(row["procedures"]),
        "diagnosis_codes": json.loads(row["diagnosis_codes"]),
    }
    found = determine(ctx.db, ctx.episode, member, request, attachments, ctx.runtime.world.today)
    conn.execute(
        "UPDATE pa_submissions SET status = ?, determination = ?, auth_number = ? "
        "WHERE confirmation_number = ?",
        (found.status, found.reason, found.auth_number, number),
    )
    return found


_DIGITS = str.maketrans("ABCDEFGHJKLMNPQRSTUVWXYZ", "123456789012345678901234")


def _line_problem(line: dict[str, Any], codes: list[str]) -> str | None:
    proc = clinical.PROCEDURES.get(line["code"])
    if proc is None:
        return None  # not a procedure the plan reviews by these rules
    units = line.get("units") or 0
    if units > proc.max_units:
        return (
            f"Denied: CPT {proc.code} requested for {units} units; the plan allows "
            f"{proc.max_units} per date of service."
        )
    if proc.indications and not set(proc.indications) & set(codes):
        return (
            f"Denied: the diagnoses submitted do not support medical necessity for CPT "
            f"{proc.code} ({proc.description})."
        )
    return None

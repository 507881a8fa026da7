"""Payer A's requests as a provider sees them: determinations, and answering a request for
more information.

Two sources feed one list: requests on file before the episode (`prior_requests`, from the
world) and requests submitted in it (`pa_submissions`). Either may be pended for information;
answering one attaches documents and puts it back in the reviewer's queue.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs.shared import portal
from endstate.envs.shared.determination import STATUS_LABELS
from endstate.envs.shared.web import Ctx, endpoint, redirect
from endstate.envs.world import mdy

SYSTEM = "payer_a"
MESSAGE = "message"

# One row shape for both sources: what the lists show.
_UNION = (
    "SELECT confirmation_number, request_type, member_id, service_date, status, id AS sort, "
    "created_at FROM pa_submissions WHERE system = ? "
    "UNION ALL SELECT r.number, CASE f.department WHEN 'Diagnostic Radiology' THEN 'imaging' "
    "ELSE 'outpatient' END, c.member_id, f.appointment, r.status, 0, r.submitted "
    "FROM prior_requests r JOIN coverages c ON c.id = r.coverage_id "
    "JOIN referrals f ON f.id = r.referral_id WHERE r.portal = ?"
)


def request_rows(ctx: Ctx, term: str = "") -> list[sqlite3.Row]:
    """Every request on this portal, newest first; `term` narrows to a number or member id."""
    sql = f"SELECT * FROM ({_UNION})"
    params: tuple[str, ...] = (SYSTEM, SYSTEM)
    if term:
        sql += " WHERE confirmation_number = upper(?) OR upper(member_id) = upper(?)"
        params += (term, term)
    rows: list[sqlite3.Row] = ctx.db.rows(sql + " ORDER BY sort DESC, created_at DESC", params)
    return rows


def prior_request(ctx: Ctx, number: str) -> sqlite3.Row | None:
    """A request on file from before the episode, with what the page shows of it."""
    return ctx.db.row(
        "SELECT r.*, c.member_id, p.first, p.last, p.dob, f.appointment, f.provider_npi "
        "FROM prior_requests r JOIN coverages c ON c.id = r.coverage_id "
        "JOIN patients p ON p.mrn = c.mrn JOIN referrals f ON f.id = r.referral_id "
        "WHERE r.number = ? AND r.portal = ?",
        (number, SYSTEM),
    )


async def prior_request_page(ctx: Ctx, row: sqlite3.Row, error: str = "") -> Response:
    codes = [
        r["code"]
        for r in ctx.db.rows(
            "SELECT code FROM referral_diagnoses WHERE referral_id = ? ORDER BY seq",
            (row["referral_id"],),
        )
    ]
    lines = ctx.db.rows(
        "SELECT cpt, quantity FROM referral_services WHERE referral_id = ? ORDER BY seq",
        (row["referral_id"],),
    )
    return ctx.render(
        "payer_a/pa_prior.html",
        status=422 if error else 200,
        req=row,
        det=row,
        codes=codes,
        lines=lines,
        label=STATUS_LABELS.get(row["status"], row["status"]),
        responses=_responses(ctx, row["number"]),
        error=error,
    )


def _responses(ctx: Ctx, number: str) -> list[dict[str, Any]]:
    out = []
    for r in ctx.db.rows(
        "SELECT * FROM pa_responses WHERE system = ? AND request_number = ? ORDER BY id",
        (SYSTEM, number),
    ):
        files = ctx.db.rows(
            "SELECT filename, size FROM attachments WHERE owner_type = 'pa_response' "
            "AND owner_id = ?",
            (str(r["id"]),),
        )
        out.append({"message": r["message"], "created_at": r["created_at"], "files": files})
    return out


@endpoint(SYSTEM, login=True)
async def respond(ctx: Ctx) -> Response:
    """Answer a request for information: documents (at least one) and an optional message."""
    assert ctx.form is not None
    number = ctx.request.path_params["number"]
    row = prior_request(ctx, number)
    submitted = ctx.db.row(
        "SELECT * FROM pa_submissions WHERE confirmation_number = ? AND system = ?",
        (number, SYSTEM),
    )
    if row is None and submitted is None:
        return ctx.not_found(
            "Request not found", "No prior authorization request has this number.",
            {"confirmation_number": number},
        )  # fmt: skip
    status = (row or submitted)["status"]  # type: ignore[index]
    uploads, problem = await portal.read_uploads(ctx)
    if status != "info_requested":
        problem = "This request is not waiting for information; nothing was sent."
    elif not uploads and not problem:
        problem = "Attach the document the reviewer asked for."
    if problem:
        ctx.event("pa.respond.invalid", {"request_number": number, "error": problem}, False)
        if row is not None:
            return await prior_request_page(ctx, row, problem)
        return redirect(f"/prior-auth/{number}")
    _file_response(ctx, number, row is not None, ctx.field(MESSAGE), uploads)
    return redirect(f"/prior-auth/{number}")


def _file_response(
    ctx: Ctx, number: str, prior: bool, message: str, uploads: list[portal.Upload]
) -> None:
    received = (
        f"Information received {mdy(ctx.db.clock)}; pended for clinical review by a nurse reviewer."
    )
    detail = {"request_number": number, "files": len(uploads)}
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="pa.respond", detail=detail) as c:
        cur = c.execute(
            "INSERT INTO pa_responses (system, request_number, message, created_at) "
            "VALUES (?, ?, ?, ?)",
            (SYSTEM, number, message, ctx.db.clock),
        )
        portal.store_uploads(ctx, c, "pa_response", str(cur.lastrowid), uploads)
        if prior:
            c.execute(
                "UPDATE prior_requests SET status = 'pending_review', determination = ? "
                "WHERE number = ?",
                (received, number),
            )
        else:
            c.execute(
                "UPDATE pa_submissions SET status = 'pending_review', determination = ? "
                "WHERE confirmation_number = ?",
                (received, number),
            )


ROUTES = [Route("/prior-auth/{number}/respond", respond, methods=["POST"])]

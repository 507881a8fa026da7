"""What both payer portals share: sign-in, member matching, coverage on a date, uploads.

The portals differ in layout and flow on purpose; the rules underneath (who may sign in,
which member an id + date of birth names, how an upload is matched back to a chart
document) are the same, so they live here once.
"""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import date
from pathlib import PurePath
from typing import Any

from starlette.datastructures import UploadFile
from starlette.responses import Response

from endstate.envs.shared.web import MAX_UPLOAD, Ctx, redirect
from endstate.envs.world import mdy

ALLOWED_UPLOADS = {".pdf", ".txt", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".docx"}
MAX_FILES = 10
Upload = tuple[str, str, bytes]  # filename, content type, bytes


def credentials(ctx: Ctx, portal: str) -> set[tuple[str, str]]:
    rows = ctx.db.rows(
        "SELECT DISTINCT portal_username, portal_password FROM plans WHERE portal = ?", (portal,)
    )
    return {(r["portal_username"], r["portal_password"]) for r in rows}


def sign_in(ctx: Ctx, portal: str, username: str, password: str) -> bool:
    """Check the credentials and record the attempt (row + event) either way."""
    ok = bool(username) and (username, password) in credentials(ctx, portal)
    return record_sign_in(ctx, username, ok)


def sign_out(ctx: Ctx) -> Response:
    """End the session's sign-in (an event, no row) and go back to the login page."""
    with ctx.db.change(system=ctx.system, page=ctx.page, kind="logout", detail={}):
        pass
    ctx.session.user = None
    return redirect("/login")


def record_sign_in(ctx: Ctx, username: str, ok: bool, detail: dict[str, Any] | None = None) -> bool:
    """Record a sign-in attempt (a `logins` row and its event), and sign the session in if ok."""
    kind = "login.success" if ok else "login.failure"
    detail = {"username": username} | (detail or {})
    with ctx.db.change(system=ctx.system, page=ctx.page, kind=kind, detail=detail) as c:
        c.execute(
            "INSERT INTO logins (system, username, success, created_at) VALUES (?, ?, ?, ?)",
            (ctx.system, username, int(ok), ctx.db.clock),
        )
    if ok:
        ctx.session.user = username
    return ok


def next_path(ctx: Ctx, default: str) -> str:
    """Where a sign-in goes next: the form's or the query's `next`, if it stays on this site."""
    raw = ctx.form.get("next") if ctx.form is not None else ctx.request.query_params.get("next")
    return safe_next(raw, default)


def signed_in_or_refused(
    ctx: Ctx,
    login_page: str,
    username: str,
    ok: bool,
    home: str,
    detail: dict[str, Any] | None = None,
) -> Response:
    """Record the attempt; on to `next` if it succeeded, else the login page again (401)."""
    if record_sign_in(ctx, username, ok, detail):
        return redirect(next_path(ctx, home))
    return ctx.render(
        login_page,
        status=401,
        view=False,
        username=username,
        next=next_path(ctx, home),
        error="The username or password is incorrect.",
    )


def safe_next(raw: object, default: str) -> str:
    wanted = raw if isinstance(raw, str) else ""
    local = wanted.startswith("/") and not wanted.startswith("//") and "\\" not in wanted
    return wanted if local else default


def find_member(ctx: Ctx, portal: str, member_id: str, dob: date) -> sqlite3.Row | None:
    """The coverage a member id + date of birth names on this portal's plans, if any."""
    return ctx.db.row(
        "SELECT c.*, p.first, p.last, p.dob, pl.name AS plan_name, pl.payer FROM coverages c "
        "JOIN patients p ON p.mrn = c.mrn JOIN plans pl ON pl.id = c.plan_id "
        "WHERE upper(c.member_id) = upper(?) AND p.dob = ? AND pl.portal = ? "
        "ORDER BY c.effective DESC",
        (member_id, dob.isoformat(), portal),
    )


def coordination(ctx: Ctx, coverage: sqlite3.Row) -> str | None:
    """For a secondary coverage, the other-coverage line an eligibility response carries: the
    primary plan in force, which authorizes and pays first."""
    if coverage["rank"] != 2:
        return None
    primary = ctx.db.row(
        "SELECT pl.name, pl.payer FROM coverages c JOIN plans pl ON pl.id = c.plan_id "
        "WHERE c.mrn = ? AND c.rank = 1 AND c.status = 'active'",
        (coverage["mrn"],),
    )
    if primary is None:
        return None
    return (
        f"Coordination of benefits: this plan is secondary for this member. Primary coverage "
        f"on file: {primary['name']} ({primary['payer']}). Request prior authorization from "
        "the primary payer first; this plan coordinates on its determination."
    )


def status_on(coverage: sqlite3.Row, when: date) -> tuple[str, str]:
    """Coverage status on a date of service: a slug and the sentence a portal shows."""
    day = when.isoformat()
    if coverage["status"] == "inactive":
        return "inactive", "Coverage is inactive. Benefits are not available."
    if day < coverage["effective"]:
        return (
            "not_effective",
            f"Coverage is not yet effective on this date (begins {mdy(coverage['effective'])}).",
        )
    if coverage["termination"] and day > coverage["termination"]:
        return "terminated", f"Coverage terminated on {mdy(coverage['termination'])}."
    return "active", "Coverage is active on this date of service."


async def read_uploads(ctx: Ctx, name: str = "attachments") -> tuple[list[Upload], str | None]:
    """The files of a multipart field, checked for type, size and emptiness."""
    assert ctx.form is not None
    files: list[Upload] = []
    for item in ctx.form.getlist(name):
        if not isinstance(item, UploadFile) or not item.filename:
            continue
        filename = PurePath(item.filename).name
        if PurePath(filename).suffix.lower() not in ALLOWED_UPLOADS:
            return files, f"{filename}: attach PDF, text, image or Word files only."
        data = await item.read(MAX_UPLOAD + 1)
        if len(data) > MAX_UPLOAD:
            return files, f"{filename}: files must be 5 MB or smaller."
        if not data:
            return files, f"{filename}: the file is empty."
        files.append((filename, item.content_type or "application/octet-stream", data))
    if len(files) > MAX_FILES:
        return files, f"Attach at most {MAX_FILES} files."
    return files, None


def matching_document(ctx: Ctx, digest: str) -> str | None:
    """The chart document whose downloaded bytes have this hash: world or made this episode."""
    known = ctx.runtime.document_hashes.get(digest)
    if known is not None:
        return known
    for row in ctx.db.rows(
        "SELECT id, text FROM documents WHERE id > ?", (ctx.runtime.last_document_id,)
    ):
        if hashlib.sha256(row["text"].encode("utf-8")).hexdigest() == digest:
            return str(row["id"])
    return None


def store_uploads(
    ctx: Ctx, conn: sqlite3.Connection, owner_type: str, owner_id: str, files: list[Upload]
) -> None:
    """Insert attachment rows inside the caller's transaction (no awaits in between)."""
    for filename, ctype, data in files:
        digest = hashlib.sha256(data).hexdigest()
        conn.execute(
            "INSERT INTO attachments (owner_type, owner_id, filename, content_type, size, "
            "sha256, document_id, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                owner_type,
                owner_id,
                filename,
                ctype,
                len(data),
                digest,
                matching_document(ctx, digest),
                data,
            ),
        )


def claim(ctx: Ctx, portal: str, claim_id: str) -> sqlite3.Row | None:
    """A denied claim on one of this portal's plans, with its member's id and birth date."""
    return ctx.db.row(
        "SELECT d.*, c.member_id, p.first, p.last, p.dob, pl.name AS plan_name, pl.payer, "
        "pl.appeal_window_days, pl.appeal_channel, pl.appeals_fax, pl.appeal_form "
        "FROM denials d JOIN coverages c ON c.id = d.coverage_id "
        "JOIN patients p ON p.mrn = d.mrn JOIN plans pl ON pl.id = d.plan_id "
        "WHERE upper(d.claim_id) = upper(?) AND pl.portal = ?",
        (claim_id, portal),
    )


def channel_refusal(found: sqlite3.Row) -> str | None:
    """Why this portal will not take an appeal of the claim: its plan takes appeals by fax."""
    if found["appeal_channel"] == "portal":
        return None
    return (
        f"{found['plan_name']} does not accept appeals through this portal. Fax the appeal to "
        f"{found['appeals_fax']} with form {found['appeal_form'].split(':')[0]}."
    )


def appeal_on_file(ctx: Ctx, claim_id: str) -> str | None:
    """The confirmation number of an appeal this portal already holds for the claim."""
    row = ctx.db.row(
        "SELECT confirmation_number FROM appeals WHERE system = ? AND claim_id = ?",
        (ctx.system, claim_id),
    )
    return str(row["confirmation_number"]) if row else None


def file_appeal(
    ctx: Ctx, number: str, found: sqlite3.Row, fields: dict[str, str], files: list[Upload]
) -> None:
    """One appeal row, its attachments and its `appeal.submit` event, in one transaction."""
    detail = {"confirmation_number": number, "claim_id": found["claim_id"]}
    with ctx.db.change(system=ctx.system, page=ctx.page, kind="appeal.submit", detail=detail) as c:
        c.execute(
            "INSERT INTO appeals (system, confirmation_number, claim_id, member_id, member_dob, "
            "coverage_id, plan_id, appeal_type, reason, explanation, contact_name, "
            "contact_phone, status, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'received', ?)",
            (
                ctx.system,
                number,
                found["claim_id"],
                fields.get("member_id") or found["member_id"],
                found["dob"],
                found["coverage_id"],
                found["plan_id"],
                fields.get("appeal_type", ""),
                fields.get("reason", ""),
                fields.get("explanation", ""),
                fields.get("contact_name", ""),
                fields.get("contact_phone", ""),
                ctx.db.clock,
            ),
        )
        store_uploads(ctx, c, "appeal", number, files)

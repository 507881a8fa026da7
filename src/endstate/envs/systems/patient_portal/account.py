"""Signing in (each patient with their own portal account), signing out, the home page."""

from __future__ import annotations

from starlette.responses import Response

from endstate.envs.shared.portal import next_path, sign_out, signed_in_or_refused
from endstate.envs.shared.web import Ctx, endpoint, redirect
from endstate.envs.systems.patient_portal.common import SYSTEM, patient, provider_name, when


def _next(ctx: Ctx) -> str:
    return next_path(ctx, "/home")


@endpoint(SYSTEM)
async def root(ctx: Ctx) -> Response:
    return redirect("/home" if ctx.session.user else "/login")


@endpoint(SYSTEM)
async def login_page(ctx: Ctx) -> Response:
    if ctx.session.user:
        return redirect("/home")
    return ctx.render("patient_portal/login.html", error="", username="", next=_next(ctx))


@endpoint(SYSTEM)
async def login(ctx: Ctx) -> Response:
    """Check a patient's username and password; every attempt is a row and an event."""
    username, password = ctx.field("username"), ctx.field("password", strip=False)
    found = ctx.db.row(
        "SELECT id FROM pp_patients WHERE username = ? AND password = ?", (username, password)
    )
    ok = bool(username) and found is not None
    detail = {"patient_id": found["id"]} if found else {}
    return signed_in_or_refused(ctx, "patient_portal/login.html", username, ok, "/home", detail)


@endpoint(SYSTEM, login=True)
async def logout(ctx: Ctx) -> Response:
    return sign_out(ctx)


@endpoint(SYSTEM, login=True)
async def home(ctx: Ctx) -> Response:
    me = patient(ctx)
    pcp = ctx.db.row("SELECT * FROM pp_providers WHERE id = ?", (me["pcp_id"],))
    upcoming = ctx.db.rows(
        "SELECT a.*, p.first, p.last, p.credential, p.specialty FROM pp_appointments a "
        "JOIN pp_providers p ON p.id = a.provider_id WHERE a.patient_id = ? "
        "AND a.status = 'scheduled' AND a.starts_at >= ? ORDER BY a.starts_at",
        (me["id"], ctx.db.clock),
    )
    return ctx.render(
        "patient_portal/home.html",
        me=me,
        pcp=provider_name(pcp) if pcp else "",
        upcoming=upcoming[:1],
        when=when,
    )

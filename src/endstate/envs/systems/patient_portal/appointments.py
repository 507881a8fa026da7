"""Appointments: upcoming and past, each naming its provider; cancelling one (a confirmation
page with a required reason) and booking one (a provider out of all ~160, a weekday, a
reason). Both write the appointment and a `pp_appointment_changes` row with their event."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from starlette.responses import Response

from endstate.envs.shared import forms
from endstate.envs.shared.web import Ctx, endpoint, redirect
from endstate.envs.systems.patient_portal import catalog
from endstate.envs.systems.patient_portal.clinic import SLOTS
from endstate.envs.systems.patient_portal.common import (
    SYSTEM,
    patient,
    provider_name,
    providers,
    when,
)

CANCEL_REASONS: tuple[tuple[str, str], ...] = (
    ("feeling-better", "Feeling better"),
    ("conflict", "Schedule conflict"),
    ("transportation", "Transportation"),
    ("other-provider", "Seeing another provider"),
    ("other", "Other"),
)
BOOK_WITHIN_DAYS = 180
_LIST = (
    "SELECT a.*, p.first, p.last, p.credential, p.specialty FROM pp_appointments a "
    "JOIN pp_providers p ON p.id = a.provider_id WHERE a.patient_id = ? "
)


@endpoint(SYSTEM, login=True)
async def appointments(ctx: Ctx) -> Response:
    me = patient(ctx)
    now = ctx.db.clock
    upcoming = ctx.db.rows(_LIST + "AND a.starts_at >= ? ORDER BY a.starts_at", (me["id"], now))
    past = ctx.db.rows(_LIST + "AND a.starts_at < ? ORDER BY a.starts_at DESC", (me["id"], now))
    return ctx.render(
        "patient_portal/appointments.html",
        upcoming=upcoming,
        past=past,
        when=when,
        name=provider_name,
        toast=_toast(ctx, me["id"]),
    )


def _toast(ctx: Ctx, patient_id: str) -> str:
    """The confirmation a redirect asked for, only if that change is on record."""
    q = ctx.request.query_params
    for param, action, text in (
        ("cancelled", "cancel", "was cancelled"),
        ("booked", "book", "is booked"),
    ):
        done = ctx.db.row(
            "SELECT 1 FROM pp_appointment_changes WHERE patient_id = ? AND appointment_id = ? "
            "AND action = ?",
            (patient_id, q.get(param, ""), action),
        )
        if done is not None:
            return f"Your appointment {text}."
    return ""


def _own(ctx: Ctx, appointment_id: str) -> Any:
    return ctx.db.row(_LIST + "AND a.id = ?", (patient(ctx)["id"], appointment_id))


def _cancellable(ctx: Ctx, appt: Any) -> str:
    """Why an appointment cannot be cancelled ('' when it can)."""
    if appt["status"] != "scheduled":
        return "This appointment is not scheduled, so it cannot be cancelled."
    if appt["starts_at"] < ctx.db.clock:
        return "This appointment has already taken place."
    return ""


def _cancel_page(ctx: Ctx, appt: Any, errors: dict[str, str], status: int = 200) -> Response:
    return ctx.render(
        "patient_portal/cancel.html",
        status=status,
        appt=appt,
        when=when,
        name=provider_name,
        reasons=CANCEL_REASONS,
        errors=errors,
        refused=_cancellable(ctx, appt),
    )


@endpoint(SYSTEM, login=True)
async def cancel_page(ctx: Ctx) -> Response:
    appt_id = ctx.request.path_params["aid"]
    appt = _own(ctx, appt_id)
    if appt is None:
        return ctx.not_found(
            "Appointment not found",
            "You have no appointment with this id.",
            {"appointment_id": appt_id[:20]},
        )
    return _cancel_page(ctx, appt, {})


@endpoint(SYSTEM, login=True)
async def cancel(ctx: Ctx) -> Response:
    appt_id = ctx.request.path_params["aid"]
    appt = _own(ctx, appt_id)
    if appt is None:
        return ctx.not_found(
            "Appointment not found",
            "You have no appointment with this id.",
            {"appointment_id": appt_id[:20]},
        )
    reason = ctx.field("cancel_reason")
    refused = _cancellable(ctx, appt)
    errors = (
        {}
        if reason in dict(CANCEL_REASONS)
        else {"cancel_reason": "Choose a reason for cancelling."}
    )
    if refused or errors:
        detail = {"appointment_id": appt_id, "errors": sorted(errors) or ["appointment"]}
        ctx.event("appointment.cancel.invalid", detail, accepted=False)
        return _cancel_page(ctx, appt, errors, status=409 if refused else 422)
    detail = {"appointment_id": appt_id, "cancel_reason": reason}
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="appointment.cancel", detail=detail) as c:
        c.execute("UPDATE pp_appointments SET status = 'cancelled' WHERE id = ?", (appt_id,))
        c.execute(
            "INSERT INTO pp_appointment_changes (patient_id, appointment_id, action, provider_id, "
            "starts_at, reason, cancel_reason, created_at) VALUES (?, ?, 'cancel', ?, ?, ?, ?, ?)",
            (
                appt["patient_id"],
                appt_id,
                appt["provider_id"],
                appt["starts_at"],
                appt["reason"],
                reason,
                ctx.db.clock,
            ),
        )
    return redirect(f"/appointments?cancelled={appt_id}")


def _book_page(
    ctx: Ctx, form: dict[str, str], errors: dict[str, str], status: int = 200
) -> Response:
    return ctx.render(
        "patient_portal/book.html",
        status=status,
        form=form,
        errors=errors,
        providers=[(p["id"], provider_name(p)) for p in providers(ctx)],
        reasons=[(r, r) for r in catalog.VISIT_REASONS],
    )


@endpoint(SYSTEM, login=True)
async def book_page(ctx: Ctx) -> Response:
    return _book_page(ctx, {"provider_id": "", "date": "", "reason": ""}, {})


def _book_errors(ctx: Ctx, form: dict[str, str]) -> tuple[date | None, dict[str, str]]:
    errors: dict[str, str] = {}
    if ctx.db.row("SELECT 1 FROM pp_providers WHERE id = ?", (form["provider_id"],)) is None:
        errors["provider_id"] = "Choose a provider."
    day, problem = forms.parse_mdy(form["date"])
    today = ctx.runtime.world.today
    if problem:
        errors["date"] = f"Date: {problem}"
    elif day is not None and day <= today:
        errors["date"] = "Choose a date after today."
    elif day is not None and day > today + timedelta(days=BOOK_WITHIN_DAYS):
        errors["date"] = f"Appointments can be booked up to {BOOK_WITHIN_DAYS} days ahead."
    elif day is not None and day.weekday() >= 5:
        errors["date"] = "The practice is closed on weekends. Choose a weekday."
    if form["reason"] not in catalog.VISIT_REASONS:
        errors["reason"] = "Choose a reason for the visit."
    return day, errors


def _free_slot(ctx: Ctx, provider_id: str, day: date) -> str | None:
    taken = {
        r["starts_at"][11:]
        for r in ctx.db.rows(
            "SELECT starts_at FROM pp_appointments WHERE provider_id = ? AND status = 'scheduled' "
            "AND substr(starts_at, 1, 10) = ?",
            (provider_id, day.isoformat()),
        )
    }
    return next((s for s in SLOTS if s not in taken), None)


@endpoint(SYSTEM, login=True)
async def book(ctx: Ctx) -> Response:
    """Book the first free slot of the chosen provider's chosen day (the clinic's grid)."""
    form = {k: ctx.field(k) for k in ("provider_id", "date", "reason")}
    day, errors = _book_errors(ctx, form)
    slot = _free_slot(ctx, form["provider_id"], day) if day and not errors else None
    if day and not errors and slot is None:
        errors["date"] = "This provider has no free time that day. Choose another date."
    if errors or day is None or slot is None:
        ctx.event("appointment.book.invalid", {"errors": sorted(errors)}, accepted=False)
        return _book_page(ctx, form, errors, status=422)
    me = patient(ctx)
    seq = int(
        ctx.db.rows("SELECT count(*) FROM pp_appointment_changes WHERE action = 'book'")[0][0]
    )
    appt_id = f"APT-{ctx.episode.code('patient_portal.appointment', seq + 1, 8)}"
    starts = f"{day.isoformat()}T{slot}"
    detail = {"appointment_id": appt_id, "provider_id": form["provider_id"], "starts_at": starts}
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="appointment.book", detail=detail) as c:
        c.execute(
            "INSERT INTO pp_appointments (id, patient_id, provider_id, starts_at, reason, status) "
            "VALUES (?, ?, ?, ?, ?, 'scheduled')",
            (appt_id, me["id"], form["provider_id"], starts, form["reason"]),
        )
        c.execute(
            "INSERT INTO pp_appointment_changes (patient_id, appointment_id, action, provider_id, "
            "starts_at, reason, cancel_reason, created_at) VALUES (?, ?, 'book', ?, ?, ?, '', ?)",
            (me["id"], appt_id, form["provider_id"], starts, form["reason"], ctx.db.clock),
        )
    return redirect(f"/appointments?booked={appt_id}")

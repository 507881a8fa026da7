"""Secure messages: the inbox (what the practice sent), reading one, compose and the sent
list. The recipient is chosen from a dropdown of every provider of the practice (~160, with
look-alike names); a reply fills in the subject but never the recipient."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from endstate.envs.shared.web import Ctx, endpoint, redirect
from endstate.envs.systems.patient_portal.common import (
    SYSTEM,
    patient,
    provider_name,
    provider_names,
    providers,
)

MAX_SUBJECT = 200
MAX_BODY = 5000


@endpoint(SYSTEM, login=True)
async def inbox(ctx: Ctx) -> Response:
    rows = ctx.db.rows(
        "SELECT * FROM pp_messages WHERE patient_id = ? ORDER BY sent_at DESC, id DESC",
        (patient(ctx)["id"],),
    )
    return ctx.render("patient_portal/inbox.html", rows=rows, names=provider_names(ctx))


def _message(ctx: Ctx, message_id: str) -> Any:
    return ctx.db.row(
        "SELECT * FROM pp_messages WHERE id = ? AND patient_id = ?",
        (message_id, patient(ctx)["id"]),
    )


@endpoint(SYSTEM, login=True)
async def read(ctx: Ctx) -> Response:
    message_id = ctx.request.path_params["mid"]
    message = _message(ctx, message_id)
    if message is None:
        return ctx.not_found(
            "Message not found",
            "You have no message with this id.",
            {"message_id": message_id[:20]},
        )
    ctx.event("message.read", {"message_id": message_id})
    return ctx.render(
        "patient_portal/message.html",
        message=message,
        sender=provider_names(ctx)[message["provider_id"]],
    )


def _compose(ctx: Ctx, form: dict[str, str], errors: dict[str, str], status: int = 200) -> Response:
    original = _message(ctx, form["in_reply_to"]) if form["in_reply_to"] else None
    return ctx.render(
        "patient_portal/compose.html",
        status=status,
        form=form,
        errors=errors,
        original=original,
        sender=provider_names(ctx).get(original["provider_id"], "") if original else "",
        providers=[(p["id"], provider_name(p)) for p in providers(ctx)],
    )


@endpoint(SYSTEM, login=True)
async def compose_page(ctx: Ctx) -> Response:
    reply_to = ctx.request.query_params.get("reply_to", "")
    original = _message(ctx, reply_to) if reply_to else None
    form = {
        "provider_id": "",
        "subject": f"Re: {original['subject']}" if original else "",
        "body": "",
        "in_reply_to": original["id"] if original else "",
    }
    return _compose(ctx, form, {})


def _errors(ctx: Ctx, form: dict[str, str]) -> dict[str, str]:
    errors: dict[str, str] = {}
    if ctx.db.row("SELECT 1 FROM pp_providers WHERE id = ?", (form["provider_id"],)) is None:
        errors["provider_id"] = "Choose who the message is to."
    if not form["subject"]:
        errors["subject"] = "Enter a subject."
    elif len(form["subject"]) > MAX_SUBJECT:
        errors["subject"] = f"The subject must be {MAX_SUBJECT} characters or fewer."
    if not form["body"]:
        errors["body"] = "Enter your message."
    elif len(form["body"]) > MAX_BODY:
        errors["body"] = f"The message must be {MAX_BODY} characters or fewer."
    if form["in_reply_to"] and _message(ctx, form["in_reply_to"]) is None:
        errors["in_reply_to"] = "The message you are replying to was not found."
    return errors


@endpoint(SYSTEM, login=True)
async def send(ctx: Ctx) -> Response:
    form = {k: ctx.field(k) for k in ("provider_id", "subject", "body", "in_reply_to")}
    errors = _errors(ctx, form)
    if errors:
        ctx.event("message.invalid", {"errors": sorted(errors)}, accepted=False)
        return _compose(ctx, form, errors, status=422)
    seq = int(ctx.db.rows("SELECT count(*) FROM pp_sent_messages")[0][0]) + 1
    message_id = f"SM-{ctx.episode.code('patient_portal.message', seq, 8)}"
    detail = {"message_id": message_id, "provider_id": form["provider_id"]}
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="message.send", detail=detail) as c:
        c.execute(
            "INSERT INTO pp_sent_messages (id, seq, patient_id, provider_id, subject, body, "
            "in_reply_to, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                message_id,
                seq,
                patient(ctx)["id"],
                form["provider_id"],
                form["subject"],
                form["body"],
                form["in_reply_to"] or None,
                ctx.db.clock,
            ),
        )
    return redirect(f"/messages/sent?sent={message_id}")


@endpoint(SYSTEM, login=True)
async def sent(ctx: Ctx) -> Response:
    rows = ctx.db.rows(
        "SELECT * FROM pp_sent_messages WHERE patient_id = ? ORDER BY seq DESC",
        (patient(ctx)["id"],),
    )
    sent_id = ctx.request.query_params.get("sent", "")
    toast = "Your message was sent." if any(r["id"] == sent_id for r in rows) else ""
    return ctx.render("patient_portal/sent.html", rows=rows, names=provider_names(ctx), toast=toast)

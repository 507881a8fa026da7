"""Payer A's eligibility check, claims lookup and appeals (all behind the portal's login).

Reads (eligibility, claim searches, claim views) are events; an appeal is a row with its
attachments. Each form re-renders with visible messages when anything is wrong.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs.shared import forms, portal
from endstate.envs.shared.web import Ctx, endpoint, redirect
from endstate.envs.world import catalog, mdy

SYSTEM = "payer_a"
PORTAL = "payer_a"
_CLAIM = re.compile(r"^CLM\d{9}$", re.IGNORECASE)
_APPEAL_TYPES = dict(catalog.APPEAL_TYPES)
_APPEAL_FIELDS = (
    "claim_id",
    "member_id",
    "member_dob",
    "appeal_type",
    "explanation",
    "contact_name",
    "contact_phone",
)


@endpoint(SYSTEM, login=True)
async def eligibility(ctx: Ctx) -> Response:
    q = ctx.request.query_params
    form = {k: q.get(k, "").strip() for k in ("member_id", "member_dob", "service_date")}
    result: dict[str, Any] | None = None
    errors: dict[str, str] = {}
    if "check" in q:
        if not form["member_id"]:
            errors["member_id"] = "Enter the member ID."
        dob, problem = forms.parse_mdy(form["member_dob"])
        if problem:
            errors["member_dob"] = f"Date of birth: {problem}"
        service, problem = forms.parse_mdy(form["service_date"])
        if problem:
            errors["service_date"] = f"Date of service: {problem}"
        if errors or dob is None or service is None:
            ctx.event("eligibility.invalid", {"errors": sorted(errors)}, accepted=False)
            return ctx.render(
                "payer_a/eligibility.html", status=422, form=form, errors=errors, result=None
            )
        member = portal.find_member(ctx, PORTAL, form["member_id"], dob)
        status, message = (
            portal.status_on(member, service)
            if member is not None
            else ("not_found", "No member matches this member ID and date of birth.")
        )
        result = {
            "member": member,
            "status": status,
            "message": message,
            "coordination": portal.coordination(ctx, member) if member is not None else None,
        }
        ctx.event(
            "eligibility.check",
            {
                "member_id": form["member_id"],
                "dob": dob.isoformat(),
                "service_date": service.isoformat(),
                "found": member is not None,
                "coverage_id": member["id"] if member else None,
                "plan_id": member["plan_id"] if member else None,
                "status": status,
            },
        )
    return ctx.render("payer_a/eligibility.html", form=form, errors=errors, result=result)


@endpoint(SYSTEM, login=True)
async def claims(ctx: Ctx) -> Response:
    term = ctx.request.query_params.get("q", "").strip()
    rows: list[Any] = []
    if term:
        rows = ctx.db.rows(
            "SELECT d.*, c.member_id, p.first, p.last FROM denials d "
            "JOIN coverages c ON c.id = d.coverage_id JOIN patients p ON p.mrn = d.mrn "
            "JOIN plans pl ON pl.id = d.plan_id WHERE pl.portal = ? "
            "AND (upper(d.claim_id) = upper(?) OR upper(c.member_id) = upper(?)) "
            "ORDER BY d.service_date DESC",
            (PORTAL, term, term),
        )
        ctx.event("claim.search", {"q": term, "results": [r["claim_id"] for r in rows]})
    return ctx.render("payer_a/claims.html", q=term, rows=rows, searched=bool(term))


@endpoint(SYSTEM, login=True)
async def claim_detail(ctx: Ctx) -> Response:
    cid = ctx.request.path_params["cid"]
    found = portal.claim(ctx, PORTAL, cid)
    if found is None:
        return ctx.not_found("Claim not found", "No claim has this number.", {"claim_id": cid})
    ctx.event("claim.view", {"claim_id": found["claim_id"]})
    lines = ctx.db.rows(
        "SELECT * FROM denial_lines WHERE claim_id = ? ORDER BY line", (found["claim_id"],)
    )
    return ctx.render(
        "payer_a/claim.html",
        d=found,
        lines=[dict(x) | {"rarcs": json.loads(x["rarcs"])} for x in lines],
        appeal=portal.appeal_on_file(ctx, found["claim_id"]),
        past_deadline=found["appeal_deadline"] < ctx.runtime.world.today.isoformat(),
    )


def _appeal_form(
    ctx: Ctx,
    form: dict[str, str],
    errors: dict[str, str],
    status: int = 200,
    reattach: bool = False,
) -> Response:
    return ctx.render(
        "payer_a/appeal_form.html",
        status=status,
        form=form,
        errors=errors,
        appeal_types=catalog.APPEAL_TYPES,
        reattach=reattach,
    )


@endpoint(SYSTEM, login=True)
async def appeal_page(ctx: Ctx) -> Response:
    form = {k: "" for k in _APPEAL_FIELDS}
    form["claim_id"] = ctx.request.query_params.get("claim_id", "").strip()[:20]
    return _appeal_form(ctx, form, {})


@endpoint(SYSTEM, login=True)
async def appeal_submit(ctx: Ctx) -> Response:
    form = {k: ctx.field(k) for k in _APPEAL_FIELDS}
    form["claim_id"] = form["claim_id"].upper()
    errors: dict[str, str] = {}
    found = None
    if not _CLAIM.match(form["claim_id"]):
        errors["claim_id"] = "Enter the claim number: CLM followed by 9 digits."
    else:
        found = portal.claim(ctx, PORTAL, form["claim_id"])
        if found is None:
            errors["claim_id"] = "No claim with this number was processed by the plan."
    dob, problem = forms.parse_mdy(form["member_dob"])
    if not form["member_id"]:
        errors["member_id"] = "Enter the member ID."
    if problem:
        errors["member_dob"] = f"Date of birth: {problem}"
    matches = found is not None and (
        form["member_id"].upper() == str(found["member_id"]).upper()
        and (dob is None or dob.isoformat() == found["dob"])
    )
    if found is not None and not ({"member_id", "member_dob"} & set(errors)) and not matches:
        errors["member_id"] = "The member ID and date of birth do not match this claim."
    if found is not None and "claim_id" not in errors:
        on_file = portal.appeal_on_file(ctx, found["claim_id"])
        refusal = portal.channel_refusal(found)
        if refusal:
            errors["claim_id"] = refusal
        elif on_file:
            errors["claim_id"] = f"An appeal for this claim is already on file ({on_file})."
        elif found["appeal_deadline"] < ctx.runtime.world.today.isoformat():
            errors["claim_id"] = (
                f"The appeal deadline for this claim has passed ({mdy(found['appeal_deadline'])})."
            )
    if form["appeal_type"] not in _APPEAL_TYPES:
        errors["appeal_type"] = "Choose an appeal type."
    if len(form["explanation"]) < 20:
        errors["explanation"] = "Explain why the decision should change (at least 20 characters)."
    elif len(form["explanation"]) > 5000:
        errors["explanation"] = "The explanation must be 5000 characters or fewer."
    if not form["contact_name"]:
        errors["contact_name"] = "Enter a contact name."
    digits, problem = forms.fax_digits(form["contact_phone"])
    if problem:
        errors["contact_phone"] = problem.replace("fax number", "phone number")
    files, problem = await portal.read_uploads(ctx)
    if problem:
        errors["attachments"] = problem
    elif not files:
        errors["attachments"] = "Attach the supporting documents (at least one file)."
    if errors or found is None:
        ctx.event("appeal.invalid", {"errors": sorted(errors)}, accepted=False)
        return _appeal_form(ctx, form, errors, status=422, reattach=bool(files))
    n = int(ctx.db.rows("SELECT count(*) FROM appeals WHERE system = ?", (SYSTEM,))[0][0]) + 1
    number = "AP-" + ctx.episode.code("payer_a.appeal", n)
    fields = form | {"contact_phone": digits, "reason": ""}
    portal.file_appeal(ctx, number, found, fields, files)
    return redirect(f"/appeals/{number}")


@endpoint(SYSTEM, login=True)
async def appeal_confirmation(ctx: Ctx) -> Response:
    number = ctx.request.path_params["number"]
    row = ctx.db.row(
        "SELECT * FROM appeals WHERE system = ? AND confirmation_number = ?", (SYSTEM, number)
    )
    if row is None:
        return ctx.not_found(
            "Appeal not found", "No appeal has this number.", {"confirmation_number": number}
        )
    files = ctx.db.rows(
        "SELECT filename, size FROM attachments WHERE owner_type = 'appeal' AND owner_id = ?",
        (number,),
    )
    return ctx.render(
        "payer_a/appeal_confirmation.html", a=row, files=files, appeal_types=_APPEAL_TYPES
    )


@endpoint(SYSTEM, login=True)
async def appeals_list(ctx: Ctx) -> Response:
    rows = ctx.db.rows("SELECT * FROM appeals WHERE system = ? ORDER BY id DESC", (SYSTEM,))
    return ctx.render("payer_a/appeals.html", rows=rows, appeal_types=_APPEAL_TYPES)


ROUTES = [
    Route("/eligibility", eligibility),
    Route("/claims", claims),
    Route("/claims/{cid}", claim_detail),
    Route("/appeals/new", appeal_page),
    Route("/appeals/new", appeal_submit, methods=["POST"]),
    Route("/appeals", appeals_list),
    Route("/appeals/{number}", appeal_confirmation),
]

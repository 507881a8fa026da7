"""Payer B: a multi-payer provider hub (Cascade Provider Connect) with a different topology.

Plans whose `portal` is "payer_b" are served here. Prior authorization is a wizard (member →
provider → services → clinical + attachments → review → submit): each step is validated on
the server and its answers are kept in the browser's server-side session until the request
is submitted, so no step can be skipped and nothing the browser stores can fill one in.
Also: auth inquiry, appeals laid out differently from Payer A's, and an education page.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs.shared import portal
from endstate.envs.shared.determination import STATUS_LABELS
from endstate.envs.shared.web import Ctx, endpoint, redirect, start_endpoint
from endstate.envs.systems.payer_b.facts import (
    APPEAL_REASON_LABELS,
    CLAIM_ID_PATTERN,
    LATERALITY_LABELS,
    PORTAL,
    REQUEST_TYPE_LABELS,
    STEPS,
    SYSTEM,
)
from endstate.envs.systems.payer_b.wizard import (
    portal_plans,
    session_draft,
    wizard_discard,
    wizard_page,
    wizard_save,
    wizard_start,
    wizard_submit,
)
from endstate.envs.world import catalog, mdy


# -- sign-in -------------------------------------------------------------------------------
@endpoint(SYSTEM)
async def home(ctx: Ctx) -> Response:
    return redirect("/home" if ctx.session.user else "/login")


@endpoint(SYSTEM)
async def login_page(ctx: Ctx) -> Response:
    if ctx.session.user:
        return redirect("/home")
    nxt = portal.safe_next(ctx.request.query_params.get("next"), "/home")
    return ctx.render("payer_b/login.html", error="", username="", next=nxt)


@endpoint(SYSTEM)
async def login(ctx: Ctx) -> Response:
    assert ctx.form is not None
    username = ctx.field("username")
    nxt = portal.safe_next(ctx.form.get("next"), "/home")
    if portal.sign_in(ctx, PORTAL, username, ctx.field("password", strip=False)):
        return redirect(nxt)
    return ctx.render(
        "payer_b/login.html",
        status=401,
        view=False,
        username=username,
        next=nxt,
        error="We could not log you in. Check your user ID and password.",
    )


@endpoint(SYSTEM, login=True)
async def logout(ctx: Ctx) -> Response:
    ctx.session.scratch.pop("pa_draft", None)
    return portal.sign_out(ctx)


@endpoint(SYSTEM, login=True)
async def dashboard(ctx: Ctx) -> Response:
    recent = ctx.db.rows(
        "SELECT * FROM pa_submissions WHERE system = ? ORDER BY id DESC LIMIT 5", (SYSTEM,)
    )
    return ctx.render(
        "payer_b/home.html",
        recent=recent,
        labels=STATUS_LABELS,
        plans=portal_plans(ctx),
        draft=session_draft(ctx)["done"],
        steps=STEPS,
    )


# -- the prior-auth wizard -----------------------------------------------------------------
@endpoint(SYSTEM, login=True)
async def request_detail(ctx: Ctx) -> Response:
    number = ctx.request.path_params["number"]
    sub = ctx.db.row(
        "SELECT s.*, pl.name AS plan_name FROM pa_submissions s "
        "LEFT JOIN plans pl ON pl.id = s.plan_id "
        "WHERE s.system = ? AND s.confirmation_number = ?",
        (SYSTEM, number),
    )
    if sub is None:
        return ctx.not_found(
            "Request not found",
            "No authorization request has this reference number.",
            {"confirmation_number": number},
        )
    files = ctx.db.rows(
        "SELECT filename, size FROM attachments "
        "WHERE owner_type = 'pa_submission' AND owner_id = ? ORDER BY id",
        (number,),
    )
    return ctx.render(
        "payer_b/request.html",
        sub=sub,
        codes=json.loads(sub["diagnosis_codes"]),
        procedures=json.loads(sub["procedures"]),
        files=files,
        request_types=REQUEST_TYPE_LABELS,
        laterality_names=LATERALITY_LABELS,
        label=STATUS_LABELS.get(sub["status"], sub["status"]),
        fresh=ctx.request.query_params.get("new") == "1",
    )


# -- auth inquiry --------------------------------------------------------------------------
_SEARCH_BY: tuple[tuple[str, str], ...] = (
    ("member", "Member ID"),
    ("number", "Reference number"),
)


@endpoint(SYSTEM, login=True)
async def inquiry(ctx: Ctx) -> Response:
    q = ctx.request.query_params
    form = {"by": q.get("by", "").strip(), "q": q.get("q", "").strip()}
    errors: dict[str, str] = {}
    results: list[dict[str, Any]] | None = None
    if "search" in q:
        if form["by"] not in dict(_SEARCH_BY):
            errors["by"] = "Choose what to search by."
        if not form["q"]:
            errors["q"] = "Enter a member ID or reference number."
        if errors:
            ctx.event("inquiry.invalid", {"errors": sorted(errors)}, accepted=False)
        else:
            results = _inquire(ctx, form["by"], form["q"])
            ctx.event(
                "auth.inquiry",
                {"by": form["by"], "q": form["q"], "results": [r["number"] for r in results]},
            )
    return ctx.render(
        "payer_b/inquiry.html",
        status=422 if errors else 200,
        form=form,
        errors=errors,
        results=results,
        search_by=_SEARCH_BY,
    )


def _inquire(ctx: Ctx, by: str, term: str) -> list[dict[str, Any]]:
    """Requests made here, plus authorizations already on file for this portal's members."""
    column = "s.member_id" if by == "member" else "s.confirmation_number"
    made = ctx.db.rows(
        f"SELECT s.* FROM pa_submissions s WHERE s.system = ? AND upper({column}) = upper(?) "
        "ORDER BY s.id DESC",
        (SYSTEM, term),
    )
    out = [
        {
            "number": s["confirmation_number"],
            "member_id": s["member_id"],
            "services": ", ".join(p["code"] for p in json.loads(s["procedures"])),
            "start": s["service_date"],
            "status": STATUS_LABELS.get(s["status"], s["status"]),
            "link": f"/requests/{s['confirmation_number']}",
        }
        for s in made
    ]
    column = "c.member_id" if by == "member" else "r.existing_auth"
    on_file = ctx.db.rows(
        "SELECT r.existing_auth, r.appointment, c.member_id, "
        "(SELECT group_concat(cpt, ', ') FROM referral_services x WHERE x.referral_id = r.id) "
        "AS services FROM referrals r JOIN coverages c ON c.id = r.coverage_id "
        f"JOIN plans pl ON pl.id = c.plan_id WHERE pl.portal = ? AND r.existing_auth IS NOT NULL "
        f"AND upper({column}) = upper(?) ORDER BY r.id",
        (PORTAL, term),
    )
    out += [
        {
            "number": r["existing_auth"],
            "member_id": r["member_id"],
            "services": r["services"] or "",
            "start": r["appointment"],
            "status": "Approved",
            "link": "",
        }
        for r in on_file
    ]
    return out


# -- appeals -------------------------------------------------------------------------------
@endpoint(SYSTEM, login=True)
async def appeals(ctx: Ctx) -> Response:
    rows = ctx.db.rows("SELECT * FROM appeals WHERE system = ? ORDER BY id DESC", (SYSTEM,))
    return ctx.render("payer_b/appeals.html", rows=rows, reasons=APPEAL_REASON_LABELS)


def _appeal_page(
    ctx: Ctx,
    form: dict[str, str],
    errors: dict[str, str],
    *,
    status: int = 200,
    reattach: bool = False,
) -> Response:
    found = None
    if CLAIM_ID_PATTERN.match(form["claim_id"]):
        found = portal.claim(ctx, PORTAL, form["claim_id"])
    return ctx.render(
        "payer_b/appeal_form.html",
        status=status,
        form=form,
        errors=errors,
        claim=found,
        reasons=catalog.APPEAL_REASONS,
        reattach=reattach,
        today=ctx.runtime.world.today.isoformat(),
    )


@endpoint(SYSTEM, login=True)
async def appeal_page(ctx: Ctx) -> Response:
    claim_id = ctx.request.query_params.get("claim_id", "").strip().upper()[:20]
    errors: dict[str, str] = {}
    if claim_id:
        found = portal.claim(ctx, PORTAL, claim_id) if CLAIM_ID_PATTERN.match(claim_id) else None
        ctx.event("claim.lookup", {"claim_id": claim_id, "found": found is not None})
        if found is None:
            errors["claim_id"] = "No claim with this number was found for your organization."
    form = {"claim_id": claim_id, "reason": "", "explanation": ""}
    return _appeal_page(ctx, form, errors, status=422 if errors else 200)


@endpoint(SYSTEM, login=True)
async def appeal_submit(ctx: Ctx) -> Response:
    form = {k: ctx.field(k) for k in ("claim_id", "reason", "explanation")}
    form["claim_id"] = form["claim_id"].upper()
    errors: dict[str, str] = {}
    found = None
    if not CLAIM_ID_PATTERN.match(form["claim_id"]):
        errors["claim_id"] = "Enter the claim number: CLM followed by 9 digits."
    else:
        found = portal.claim(ctx, PORTAL, form["claim_id"])
        if found is None:
            errors["claim_id"] = "No claim with this number was found for your organization."
    if form["reason"] not in APPEAL_REASON_LABELS:
        errors["reason"] = "Choose the reason for the appeal."
    if found is not None:
        on_file = portal.appeal_on_file(ctx, found["claim_id"])
        late = found["appeal_deadline"] < ctx.runtime.world.today.isoformat()
        refusal = portal.channel_refusal(found)
        if refusal:
            errors["claim_id"] = refusal
        elif on_file:
            errors["claim_id"] = f"An appeal for this claim is already on file ({on_file})."
        elif late and form["reason"] != "late-good-cause":
            errors["reason"] = (
                f"The filing limit for this claim ended on {mdy(found['appeal_deadline'])}. "
                "Choose “Late filing with good cause” and explain the cause."
            )
    if len(form["explanation"]) < 20:
        errors["explanation"] = "Explain the appeal (at least 20 characters)."
    elif len(form["explanation"]) > 5000:
        errors["explanation"] = "The explanation must be 5000 characters or fewer."
    files, problem = await portal.read_uploads(ctx)
    if problem:
        errors["attachments"] = problem
    elif not files:
        errors["attachments"] = "Attach at least one supporting document."
    if errors or found is None:
        ctx.event("appeal.invalid", {"errors": sorted(errors)}, accepted=False)
        return _appeal_page(ctx, form, errors, status=422, reattach=bool(files))
    n = int(ctx.db.rows("SELECT count(*) FROM appeals WHERE system = ?", (SYSTEM,))[0][0]) + 1
    number = "GA-" + ctx.episode.code("payer_b.appeal", n)
    fields = form | {"appeal_type": "appeal"}
    portal.file_appeal(ctx, number, found, fields, files)
    return redirect(f"/appeals/{number}")


@endpoint(SYSTEM, login=True)
async def appeal_detail(ctx: Ctx) -> Response:
    number = ctx.request.path_params["number"]
    row = ctx.db.row(
        "SELECT * FROM appeals WHERE system = ? AND confirmation_number = ?", (SYSTEM, number)
    )
    if row is None:
        return ctx.not_found(
            "Appeal not found",
            "No appeal has this confirmation number.",
            {"confirmation_number": number},
        )
    files = ctx.db.rows(
        "SELECT filename, size FROM attachments WHERE owner_type = 'appeal' AND owner_id = ? "
        "ORDER BY id",
        (number,),
    )
    return ctx.render("payer_b/appeal.html", a=row, files=files, reasons=APPEAL_REASON_LABELS)


# -- policy and education ------------------------------------------------------------------
@endpoint(SYSTEM, login=True)
async def education(ctx: Ctx) -> Response:
    plans = portal_plans(ctx)
    wanted = ctx.request.query_params.get("plan", "")
    plan = next((p for p in plans if p["id"] == wanted), plans[0])
    ctx.event("policy.view", {"plan_id": plan["id"]})
    rules = ctx.db.rows(
        "SELECT *, json_array_length(sites) > 0 AS site_rule FROM payer_rules "
        "WHERE plan_id = ? ORDER BY cpt",
        (plan["id"],),
    )
    return ctx.render("payer_b/education.html", plans=plans, plan=plan, rules=rules)


ROUTES = [
    Route("/start", start_endpoint(SYSTEM, "/login")),
    Route("/", home),
    Route("/login", login_page),
    Route("/login", login, methods=["POST"]),
    Route("/logout", logout, methods=["POST"]),
    Route("/home", dashboard),
    Route("/requests/new", wizard_start),
    Route("/requests/new/discard", wizard_discard, methods=["POST"]),
    Route("/requests/new/review", wizard_submit, methods=["POST"]),
    Route("/requests/new/{step}", wizard_page),
    Route("/requests/new/{step}", wizard_save, methods=["POST"]),
    Route("/requests/{number}", request_detail),
    Route("/inquiry", inquiry),
    Route("/appeals", appeals),
    Route("/appeals/file", appeal_page),
    Route("/appeals/file", appeal_submit, methods=["POST"]),
    Route("/appeals/{number}", appeal_detail),
    Route("/education", education),
]

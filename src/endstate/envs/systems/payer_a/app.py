"""Payer A: a single-page-style provider portal (Bayview Health Plan) behind a login.

Plans whose `portal` is "payer_a" are served here: member lookup by id + date of birth,
a prior-auth request form with visible validation, confirmations, policies.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import date, timedelta
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs.shared import forms, portal
from endstate.envs.shared.determination import STATUS_LABELS, record_determination
from endstate.envs.shared.web import Ctx, endpoint, redirect, start_endpoint
from endstate.envs.systems.payer_a import claims, requests
from endstate.envs.world import catalog

SYSTEM = "payer_a"
PORTAL = "payer_a"
CPT_ROWS = 3
_REQUEST_TYPES = dict(catalog.REQUEST_TYPES)
_FIELDS = (
    "request_type",
    "member_id",
    "member_dob",
    "provider_npi",
    "diagnosis_codes",
    "service_date",
    "clinical_notes",
    *(f"cpt_{i}" for i in range(1, CPT_ROWS + 1)),
    *(f"units_{i}" for i in range(1, CPT_ROWS + 1)),
)


def _credentials(ctx: Ctx) -> set[tuple[str, str]]:
    rows = ctx.db.rows(
        "SELECT DISTINCT portal_username, portal_password FROM plans WHERE portal = ?", (PORTAL,)
    )
    return {(r["portal_username"], r["portal_password"]) for r in rows}


@endpoint(SYSTEM)
async def home(ctx: Ctx) -> Response:
    return redirect("/dashboard" if ctx.session.user else "/login")


@endpoint(SYSTEM)
async def login_page(ctx: Ctx) -> Response:
    if ctx.session.user:
        return redirect("/dashboard")
    return ctx.render("payer_a/login.html", error="", username="", next=_next(ctx))


def _next(ctx: Ctx) -> str:
    return portal.next_path(ctx, "/dashboard")


@endpoint(SYSTEM)
async def login(ctx: Ctx) -> Response:
    username, password = ctx.field("username"), ctx.field("password", strip=False)
    ok = bool(username) and (username, password) in _credentials(ctx)
    return portal.signed_in_or_refused(ctx, "payer_a/login.html", username, ok, "/dashboard")


@endpoint(SYSTEM, login=True)
async def logout(ctx: Ctx) -> Response:
    return portal.sign_out(ctx)


@endpoint(SYSTEM, login=True)
async def dashboard(ctx: Ctx) -> Response:
    recent = requests.request_rows(ctx)[:5]
    return ctx.render("payer_a/dashboard.html", recent=recent, labels=STATUS_LABELS)


def _member(ctx: Ctx, member_id: str, dob: date) -> sqlite3.Row | None:
    """The coverage a member id + date of birth names on this portal's plans, if any."""
    return ctx.db.row(
        "SELECT c.*, p.first, p.last, p.dob, pl.name AS plan_name FROM coverages c "
        "JOIN patients p ON p.mrn = c.mrn JOIN plans pl ON pl.id = c.plan_id "
        "WHERE upper(c.member_id) = upper(?) AND p.dob = ? AND pl.portal = ? "
        "ORDER BY c.effective DESC",
        (member_id, dob.isoformat(), PORTAL),
    )


@endpoint(SYSTEM, login=True)
async def pa_form(ctx: Ctx) -> Response:
    q = ctx.request.query_params
    form = {k: q.get(k, "").strip() for k in _FIELDS}
    lookup: dict[str, Any] = {"member": None, "provider": None}
    errors: dict[str, str] = {}
    if "lookup" in q:
        lookup, errors = _lookups(ctx, form)
        ctx.event(
            "member.lookup",
            {
                "member_id": form["member_id"],
                "dob": form["member_dob"],
                "npi": form["provider_npi"],
                "found": lookup.get("member") is not None,
            },
        )
    return ctx.render("payer_a/pa_form.html", form=form, errors=errors, **lookup, **_choices())


def _choices() -> dict[str, Any]:
    return {"request_types": catalog.REQUEST_TYPES, "cpt_rows": range(1, CPT_ROWS + 1)}


def _lookups(ctx: Ctx, form: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Member (id + DOB) and provider (NPI) lookups, with field errors for what fails."""
    errors: dict[str, str] = {}
    found: dict[str, Any] = {"member": None, "provider": None}
    dob, problem = forms.parse_mdy(form["member_dob"])
    if not form["member_id"]:
        errors["member_id"] = "Enter the member ID."
    if problem:
        errors["member_dob"] = f"Date of birth: {problem}"
    elif dob is not None and form["member_id"]:
        found["member"] = _member(ctx, form["member_id"], dob)
        if found["member"] is None:
            errors["member_id"] = "No member found with this member ID and date of birth."
    if form["provider_npi"]:
        problem = forms.npi_problem(form["provider_npi"])
        if problem:
            errors["provider_npi"] = problem
        else:
            found["provider"] = ctx.db.row(
                "SELECT * FROM providers WHERE npi = ?", (form["provider_npi"],)
            )
            if found["provider"] is None:
                errors["provider_npi"] = "No provider with this NPI is registered with the plan."
    return found, errors


@endpoint(SYSTEM, login=True)
async def pa_submit(ctx: Ctx) -> Response:
    assert ctx.form is not None
    form = {k: ctx.field(k) for k in _FIELDS}
    found, errors = _lookups(ctx, form)
    if not form["provider_npi"]:
        errors["provider_npi"] = "Enter the requesting provider's NPI."
    if form["request_type"] not in _REQUEST_TYPES:
        errors["request_type"] = "Choose a request type."
    codes, problem = forms.icd10_codes(form["diagnosis_codes"])
    if problem:
        errors["diagnosis_codes"] = problem
    procedures = _procedures(form, errors)
    service, problem = forms.parse_mdy(form["service_date"])
    today = ctx.runtime.world.today
    if problem:
        errors["service_date"] = f"Date of service: {problem}"
    elif service is not None and service < today:
        errors["service_date"] = "The service date cannot be before today (MM/DD/YYYY)."
    elif service is not None and service > today + timedelta(days=365):
        errors["service_date"] = "The service date must be within the next 12 months."
    if len(form["clinical_notes"]) < 10:
        errors["clinical_notes"] = "Enter clinical notes supporting the request."
    uploads, problem = await portal.read_uploads(ctx)
    if problem:
        errors["attachments"] = problem
    if errors:
        ctx.event("pa.invalid", {"errors": sorted(errors)}, accepted=False)
        return ctx.render(
            "payer_a/pa_form.html",
            status=422,
            form=form,
            errors=errors,
            reattach=bool(uploads),
            **found,
            **_choices(),
        )
    member = found["member"]
    n = int(ctx.db.rows("SELECT count(*) FROM pa_submissions")[0][0]) + 1
    number = "PA-" + ctx.episode.code("payer_a.pa", n)
    detail = {"confirmation_number": number, "member_id": form["member_id"]}
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="pa.submit", detail=detail) as c:
        c.execute(
            "INSERT INTO pa_submissions (system, confirmation_number, request_type, member_id, "
            "member_dob, coverage_id, plan_id, provider_npi, diagnosis_codes, procedures, "
            "service_date, clinical_notes, status, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                SYSTEM,
                number,
                form["request_type"],
                form["member_id"],
                member["dob"],
                member["id"],
                member["plan_id"],
                form["provider_npi"],
                json.dumps(codes),
                json.dumps(procedures),
                service.isoformat() if service else "",
                form["clinical_notes"],
                "pending_review",
                ctx.db.clock,
            ),
        )
        portal.store_uploads(ctx, c, "pa_submission", number, uploads)
        record_determination(ctx, c, number, len(uploads))
    return redirect(f"/prior-auth/{number}")


def _procedures(form: dict[str, str], errors: dict[str, str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(1, CPT_ROWS + 1):
        code, units = form[f"cpt_{i}"].upper(), form[f"units_{i}"]
        if not code and not units:
            continue
        problem = forms.cpt_problem(code) if code else "Enter a CPT code for these units."
        if problem:
            errors[f"cpt_{i}"] = problem
        problem = forms.units_problem(units or "")
        if problem:
            errors[f"units_{i}"] = problem
        out.append({"code": code, "units": int(units) if units.isdigit() else None})
    if not out:
        errors["cpt_1"] = "Enter at least one CPT code."
    return out


@endpoint(SYSTEM, login=True)
async def pa_confirmation(ctx: Ctx) -> Response:
    number = ctx.request.path_params["number"]
    sub = ctx.db.row("SELECT * FROM pa_submissions WHERE confirmation_number = ?", (number,))
    prior = requests.prior_request(ctx, number) if sub is None else None
    if prior is not None:
        return await requests.prior_request_page(ctx, prior)
    if sub is None:
        return ctx.not_found(
            "Request not found",
            "No prior authorization request has this number.",
            {"confirmation_number": number},
        )
    files = ctx.db.rows(
        "SELECT filename, size FROM attachments "
        "WHERE owner_type = 'pa_submission' AND owner_id = ?",
        (number,),
    )
    return ctx.render(
        "payer_a/pa_confirmation.html",
        sub=sub,
        codes=json.loads(sub["diagnosis_codes"]),
        procedures=json.loads(sub["procedures"]),
        files=files,
        request_types=_REQUEST_TYPES,
        label=STATUS_LABELS.get(sub["status"], sub["status"]),
        det=sub,
        error="",
    )


@endpoint(SYSTEM, login=True)
async def pa_list(ctx: Ctx) -> Response:
    term = ctx.request.query_params.get("q", "").strip()
    if term:
        ctx.event("auth.search", {"q": term})
    rows = requests.request_rows(ctx, term)
    return ctx.render(
        "payer_a/pa_list.html",
        rows=rows,
        q=term,
        request_types=_REQUEST_TYPES,
        labels=STATUS_LABELS,
    )


@endpoint(SYSTEM, login=True)
async def policies(ctx: Ctx) -> Response:
    rows = ctx.db.rows(
        "SELECT r.*, json_array_length(r.sites) > 0 AS site_rule, pl.name AS plan_name "
        "FROM payer_rules r JOIN plans pl ON pl.id = r.plan_id "
        "WHERE pl.portal = ? ORDER BY pl.name, r.cpt",
        (PORTAL,),
    )
    plans: dict[str, list[sqlite3.Row]] = {}
    for r in rows:
        plans.setdefault(r["plan_name"], []).append(r)
    return ctx.render("payer_a/policies.html", plans=plans)


ROUTES = [
    Route("/start", start_endpoint(SYSTEM, "/login")),
    Route("/", home),
    Route("/login", login_page),
    Route("/login", login, methods=["POST"]),
    Route("/logout", logout, methods=["POST"]),
    Route("/dashboard", dashboard),
    Route("/prior-auth/new", pa_form),
    Route("/prior-auth/new", pa_submit, methods=["POST"]),
    Route("/prior-auth", pa_list),
    Route("/prior-auth/{number}", pa_confirmation),
    Route("/policies", policies),
    *claims.ROUTES,
    *requests.ROUTES,
]

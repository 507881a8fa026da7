"""Payer B's prior-authorization wizard: member → provider → services → clinical → review.

Each step is validated on the server and its answers kept in the session's scratch space until
the request is submitted, so no step can be skipped and nothing the browser stores can fill one.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from starlette.responses import Response

from endstate.envs.shared import forms, portal
from endstate.envs.shared.determination import record_determination
from endstate.envs.shared.web import Ctx, endpoint, redirect
from endstate.envs.systems.payer_b.facts import (
    FIELDS_BY_STEP,
    LATERALITY_LABELS,
    LINES,
    MAX_SPAN_DAYS,
    PORTAL,
    REQUEST_TYPE_LABELS,
    STEP_KEYS,
    STEPS,
    SYSTEM,
)
from endstate.envs.world import catalog


def session_draft(ctx: Ctx) -> dict[str, Any]:
    draft: dict[str, Any] = ctx.session.scratch.setdefault(
        "pa_draft", {"values": {}, "done": [], "facts": {}, "files": []}
    )
    return draft


def _first_open(draft: dict[str, Any]) -> str:
    return next(s for s in STEP_KEYS if s not in draft["done"])


def _wizard(
    ctx: Ctx, step: str, errors: dict[str, str] | None = None, status: int = 200
) -> Response:
    draft = session_draft(ctx)
    values = {k: draft["values"].get(k, "") for f in FIELDS_BY_STEP.values() for k in f}
    return ctx.render(
        f"payer_b/step_{step}.html",
        status=status,
        step=step,
        steps=STEPS,
        done=draft["done"],
        form=values,
        facts=draft["facts"],
        files=[(name, len(data)) for name, _, data in draft["files"]],
        errors=errors or {},
        plans=[(p["id"], p["name"]) for p in portal_plans(ctx)],
        plan_names={p["id"]: p["name"] for p in portal_plans(ctx)},
        request_types=catalog.REQUEST_TYPES,
        request_type_names=REQUEST_TYPE_LABELS,
        lateralities=catalog.LATERALITIES,
        laterality_names=LATERALITY_LABELS,
        lines=range(1, LINES + 1),
    )


@endpoint(SYSTEM, login=True)
async def wizard_start(ctx: Ctx) -> Response:
    return redirect(f"/requests/new/{_first_open(session_draft(ctx))}")


@endpoint(SYSTEM, login=True)
async def wizard_page(ctx: Ctx) -> Response:
    step = ctx.request.path_params["step"]
    if step not in STEP_KEYS:
        ctx.event("page.not_found", {"step": step}, accepted=False)
        return ctx.render(
            "message.html", status=404, view=False, title="Page not found", message="No such step."
        )
    draft = session_draft(ctx)
    first = _first_open(draft)
    if STEP_KEYS.index(step) > STEP_KEYS.index(first):
        return redirect(f"/requests/new/{first}")  # earlier steps first, always
    return _wizard(ctx, step)


@endpoint(SYSTEM, login=True)
async def wizard_save(ctx: Ctx) -> Response:
    step = ctx.request.path_params["step"]
    draft = session_draft(ctx)
    if step not in FIELDS_BY_STEP:
        ctx.event("page.not_found", {"step": step}, accepted=False)
        return ctx.render(
            "message.html", status=404, view=False, title="Page not found", message="No such step."
        )
    first = _first_open(draft)
    if STEP_KEYS.index(step) > STEP_KEYS.index(first):
        ctx.event("pa.invalid", {"step": step, "errors": ["earlier_step"]}, accepted=False)
        return redirect(f"/requests/new/{first}")
    form = {k: ctx.field(k) for k in FIELDS_BY_STEP[step]}
    draft["values"].update(form)
    checks = {
        "member": _check_member,
        "provider": _check_provider,
        "services": _check_services,
    }
    if step == "clinical":
        errors = await _check_clinical(ctx, draft, form)
    else:
        errors = checks[step](ctx, draft, form)
    if errors:
        # A later step saved earlier may rest on what was just changed: redo it.
        draft["done"] = [s for s in draft["done"] if STEP_KEYS.index(s) < STEP_KEYS.index(step)]
        ctx.event("pa.invalid", {"step": step, "errors": sorted(errors)}, accepted=False)
        return _wizard(ctx, step, errors, status=422)
    if step not in draft["done"]:
        draft["done"].append(step)
    ctx.event("wizard.step", {"step": step})
    return redirect(f"/requests/new/{_first_open(draft)}")


def _check_member(ctx: Ctx, draft: dict[str, Any], form: dict[str, str]) -> dict[str, str]:
    errors: dict[str, str] = {}
    plans = {p["id"] for p in portal_plans(ctx)}
    if form["plan_id"] not in plans:
        errors["plan_id"] = "Choose the member's health plan."
    if not form["member_id"]:
        errors["member_id"] = "Enter the member ID from the member's card."
    dob, problem = forms.parse_mdy(form["member_dob"])
    if problem:
        errors["member_dob"] = f"Date of birth: {problem}"
    if errors or dob is None:
        return errors
    member = portal.find_member(ctx, PORTAL, form["member_id"], dob)
    if member is None:
        errors["member_id"] = "No member matches this member ID and date of birth."
    elif member["plan_id"] != form["plan_id"]:
        errors["plan_id"] = "This member is not enrolled in the selected plan."
    else:
        draft["facts"]["member"] = {
            "coverage_id": member["id"],
            "plan_id": member["plan_id"],
            "plan_name": member["plan_name"],
            "name": f"{member['last']}, {member['first']}",
            "dob": member["dob"],
            "status": member["status"],
            "effective": member["effective"],
            "termination": member["termination"],
            "coordination": portal.coordination(ctx, member),
        }
    return errors


def _provider(ctx: Ctx, npi: str, key: str, label: str, errors: dict[str, str]) -> str | None:
    if not npi:
        errors[key] = f"Enter the {label} NPI."
        return None
    problem = forms.npi_problem(npi)
    if problem:
        errors[key] = problem
        return None
    found = ctx.db.row("SELECT * FROM providers WHERE npi = ?", (npi,))
    if found is None:
        errors[key] = "No provider with this NPI is contracted with the plan."
        return None
    return f"{found['first']} {found['last']}, {found['credential']} · {found['department']}"


def _check_provider(ctx: Ctx, draft: dict[str, Any], form: dict[str, str]) -> dict[str, str]:
    errors: dict[str, str] = {}
    requesting = _provider(
        ctx, form["requesting_npi"], "requesting_npi", "requesting provider's", errors
    )
    servicing = _provider(
        ctx, form["servicing_npi"], "servicing_npi", "servicing provider's", errors
    )
    draft["facts"]["requesting"] = requesting
    draft["facts"]["servicing"] = servicing
    return errors


def _check_services(ctx: Ctx, draft: dict[str, Any], form: dict[str, str]) -> dict[str, str]:
    errors: dict[str, str] = {}
    if form["request_type"] not in REQUEST_TYPE_LABELS:
        errors["request_type"] = "Choose a request type."
    codes, problem = forms.icd10_codes(form["diagnosis_codes"])
    if problem:
        errors["diagnosis_codes"] = problem
    lines: list[dict[str, Any]] = []
    for i in range(1, LINES + 1):
        code, units, side = (form[f"{f}_{i}"] for f in ("cpt", "units", "laterality"))
        code = code.upper()
        if not code and not units:
            continue
        problem = forms.cpt_problem(code) if code else "Enter a CPT code for these units."
        if problem:
            errors[f"cpt_{i}"] = problem
        problem = forms.units_problem(units)
        if problem:
            errors[f"units_{i}"] = problem
        if side not in LATERALITY_LABELS:
            errors[f"laterality_{i}"] = f"Choose the laterality for line {i} (or Not applicable)."
        lines.append(
            {
                "code": code,
                "units": int(units) if units.isdigit() else None,
                "laterality": None if side == "NA" else side or None,
            }
        )
    if not lines:
        errors["cpt_1"] = "Enter at least one CPT code."
    today = ctx.runtime.world.today
    start, problem = forms.parse_mdy(form["start_date"])
    if problem:
        errors["start_date"] = f"Start date: {problem}"
    elif start is not None and start < today:
        errors["start_date"] = "The start date cannot be in the past."
    elif start is not None and start > today + timedelta(days=365):
        errors["start_date"] = "The start date must be within the next 12 months."
    end, problem = forms.parse_mdy(form["end_date"])
    if problem:
        errors["end_date"] = f"End date: {problem}"
    elif start is not None and end is not None and end < start:
        errors["end_date"] = "The end date cannot be before the start date."
    elif start is not None and end is not None and (end - start).days > MAX_SPAN_DAYS:
        errors["end_date"] = f"A request can span at most {MAX_SPAN_DAYS} days."
    if not errors and start is not None and end is not None:
        draft["facts"]["services"] = {
            "diagnosis_codes": codes,
            "procedures": lines,
            "start": start.isoformat(),
            "end": end.isoformat(),
        }
    return errors


async def _check_clinical(ctx: Ctx, draft: dict[str, Any], form: dict[str, str]) -> dict[str, str]:
    assert ctx.form is not None
    errors: dict[str, str] = {}
    remove = {v for v in ctx.form.getlist("remove") if isinstance(v, str)}
    draft["files"] = [f for i, f in enumerate(draft["files"]) if str(i) not in remove]
    files, problem = await portal.read_uploads(ctx)
    if problem:
        errors["attachments"] = problem
    elif len(draft["files"]) + len(files) > portal.MAX_FILES:
        errors["attachments"] = f"Attach at most {portal.MAX_FILES} files."
    else:
        draft["files"].extend(files)
    if len(form["clinical_summary"]) < 20:
        errors["clinical_summary"] = "Summarize the clinical findings (at least 20 characters)."
    elif len(form["clinical_summary"]) > 5000:
        errors["clinical_summary"] = "The clinical summary must be 5000 characters or fewer."
    if not draft["files"] and "attachments" not in errors:
        errors["attachments"] = "Attach supporting clinical documentation (at least one file)."
    return errors


@endpoint(SYSTEM, login=True)
async def wizard_submit(ctx: Ctx) -> Response:
    assert ctx.form is not None
    draft = session_draft(ctx)
    first = _first_open(draft)
    if first != "review":
        ctx.event("pa.invalid", {"step": "review", "errors": ["earlier_step"]}, accepted=False)
        return redirect(f"/requests/new/{first}")
    if ctx.form.get("attest") != "yes":
        ctx.event("pa.invalid", {"step": "review", "errors": ["attest"]}, accepted=False)
        return _wizard(
            ctx,
            "review",
            {"attest": "Confirm that the information is accurate before submitting."},
            status=422,
        )
    values, facts = draft["values"], draft["facts"]
    member, services = facts["member"], facts["services"]
    n = int(ctx.db.rows("SELECT count(*) FROM pa_submissions WHERE system = ?", (SYSTEM,))[0][0])
    number = "RQ-" + ctx.episode.code("payer_b.pa", n + 1)
    detail = {"confirmation_number": number, "member_id": values["member_id"]}
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="pa.submit", detail=detail) as c:
        c.execute(
            "INSERT INTO pa_submissions (system, confirmation_number, request_type, member_id, "
            "member_dob, coverage_id, plan_id, provider_npi, diagnosis_codes, procedures, "
            "service_date, clinical_notes, status, created_at, servicing_npi, service_end_date) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending_review', ?, ?, ?)",
            (
                SYSTEM,
                number,
                values["request_type"],
                values["member_id"],
                member["dob"],
                member["coverage_id"],
                member["plan_id"],
                values["requesting_npi"],
                json.dumps(services["diagnosis_codes"]),
                json.dumps(services["procedures"]),
                services["start"],
                values["clinical_summary"],
                ctx.db.clock,
                values["servicing_npi"],
                services["end"],
            ),
        )
        portal.store_uploads(ctx, c, "pa_submission", number, draft["files"])
        record_determination(ctx, c, number, len(draft["files"]))
    ctx.session.scratch.pop("pa_draft", None)
    return redirect(f"/requests/{number}?new=1")


@endpoint(SYSTEM, login=True)
async def wizard_discard(ctx: Ctx) -> Response:
    ctx.session.scratch.pop("pa_draft", None)
    ctx.event("wizard.discard", {})
    return redirect("/requests/new/member")


def portal_plans(ctx: Ctx) -> list[Any]:
    return ctx.db.rows("SELECT * FROM plans WHERE portal = ? ORDER BY name", (PORTAL,))

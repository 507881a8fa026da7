"""Payer B: a multi-payer provider hub (Cascade Provider Connect) with a different topology.

Plans whose `portal` is "payer_b" are served here. Prior authorization is a wizard (member →
provider → services → clinical + attachments → review → submit): each step is validated on
the server and its answers are kept in the browser's server-side session until the request
is submitted, so no step can be skipped and nothing the browser stores can fill one in.
Also: auth inquiry, appeals laid out differently from Payer A's, and an education page.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs import catalog, forms, portal
from endstate.envs.web import Ctx, endpoint, redirect, start_endpoint
from endstate.envs.world import mdy

SYSTEM = "payer_b"
PORTAL = "payer_b"
STEPS: tuple[tuple[str, str], ...] = (
    ("member", "Member"),
    ("provider", "Provider"),
    ("services", "Services"),
    ("clinical", "Clinical"),
    ("review", "Review and submit"),
)
LINES = 3
MAX_SPAN_DAYS = 180
_STEP_NAMES = tuple(s for s, _ in STEPS)
_REQUEST_TYPES = dict(catalog.REQUEST_TYPES)
_LATERALITIES = dict(catalog.LATERALITIES)
_REASONS = dict(catalog.APPEAL_REASONS)
_CLAIM = re.compile(r"^CLM\d{9}$", re.IGNORECASE)
_STEP_FIELDS: dict[str, tuple[str, ...]] = {
    "member": ("plan_id", "member_id", "member_dob"),
    "provider": ("requesting_npi", "servicing_npi"),
    "services": (
        "request_type",
        "diagnosis_codes",
        "start_date",
        "end_date",
        *(f"{f}_{i}" for i in range(1, LINES + 1) for f in ("cpt", "units", "laterality")),
    ),
    "clinical": ("clinical_summary",),
}


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
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="logout", detail={}):
        pass
    ctx.session.user = None
    ctx.session.scratch.pop("pa_draft", None)
    return redirect("/login")


def _plans(ctx: Ctx) -> list[Any]:
    return ctx.db.rows("SELECT * FROM plans WHERE portal = ? ORDER BY name", (PORTAL,))


@endpoint(SYSTEM, login=True)
async def dashboard(ctx: Ctx) -> Response:
    recent = ctx.db.rows(
        "SELECT * FROM pa_submissions WHERE system = ? ORDER BY id DESC LIMIT 5", (SYSTEM,)
    )
    return ctx.render(
        "payer_b/home.html",
        recent=recent,
        plans=_plans(ctx),
        draft=_draft(ctx)["done"],
        steps=STEPS,
    )


# -- the prior-auth wizard -----------------------------------------------------------------
def _draft(ctx: Ctx) -> dict[str, Any]:
    draft: dict[str, Any] = ctx.session.scratch.setdefault(
        "pa_draft", {"values": {}, "done": [], "facts": {}, "files": []}
    )
    return draft


def _first_open(draft: dict[str, Any]) -> str:
    return next(s for s in _STEP_NAMES if s not in draft["done"])


def _wizard(
    ctx: Ctx, step: str, errors: dict[str, str] | None = None, status: int = 200
) -> Response:
    draft = _draft(ctx)
    values = {k: draft["values"].get(k, "") for f in _STEP_FIELDS.values() for k in f}
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
        plans=[(p["id"], p["name"]) for p in _plans(ctx)],
        plan_names={p["id"]: p["name"] for p in _plans(ctx)},
        request_types=catalog.REQUEST_TYPES,
        request_type_names=_REQUEST_TYPES,
        lateralities=catalog.LATERALITIES,
        laterality_names=_LATERALITIES,
        lines=range(1, LINES + 1),
    )


@endpoint(SYSTEM, login=True)
async def wizard_start(ctx: Ctx) -> Response:
    return redirect(f"/requests/new/{_first_open(_draft(ctx))}")


@endpoint(SYSTEM, login=True)
async def wizard_page(ctx: Ctx) -> Response:
    step = ctx.request.path_params["step"]
    if step not in _STEP_NAMES:
        ctx.event("page.not_found", {"step": step}, accepted=False)
        return ctx.render(
            "message.html", status=404, view=False, title="Page not found", message="No such step."
        )
    draft = _draft(ctx)
    first = _first_open(draft)
    if _STEP_NAMES.index(step) > _STEP_NAMES.index(first):
        return redirect(f"/requests/new/{first}")  # earlier steps first, always
    return _wizard(ctx, step)


@endpoint(SYSTEM, login=True)
async def wizard_save(ctx: Ctx) -> Response:
    step = ctx.request.path_params["step"]
    draft = _draft(ctx)
    if step not in _STEP_FIELDS:
        ctx.event("page.not_found", {"step": step}, accepted=False)
        return ctx.render(
            "message.html", status=404, view=False, title="Page not found", message="No such step."
        )
    first = _first_open(draft)
    if _STEP_NAMES.index(step) > _STEP_NAMES.index(first):
        ctx.event("pa.invalid", {"step": step, "errors": ["earlier_step"]}, accepted=False)
        return redirect(f"/requests/new/{first}")
    form = {k: ctx.field(k) for k in _STEP_FIELDS[step]}
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
        draft["done"] = [s for s in draft["done"] if _STEP_NAMES.index(s) < _STEP_NAMES.index(step)]
        ctx.event("pa.invalid", {"step": step, "errors": sorted(errors)}, accepted=False)
        return _wizard(ctx, step, errors, status=422)
    if step not in draft["done"]:
        draft["done"].append(step)
    ctx.event("wizard.step", {"step": step})
    return redirect(f"/requests/new/{_first_open(draft)}")


def _check_member(ctx: Ctx, draft: dict[str, Any], form: dict[str, str]) -> dict[str, str]:
    errors: dict[str, str] = {}
    plans = {p["id"] for p in _plans(ctx)}
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
    if form["request_type"] not in _REQUEST_TYPES:
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
        if side not in _LATERALITIES:
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
    draft = _draft(ctx)
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
    ctx.session.scratch.pop("pa_draft", None)
    return redirect(f"/requests/{number}?new=1")


@endpoint(SYSTEM, login=True)
async def wizard_discard(ctx: Ctx) -> Response:
    ctx.session.scratch.pop("pa_draft", None)
    ctx.event("wizard.discard", {})
    return redirect("/requests/new/member")


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
        request_types=_REQUEST_TYPES,
        laterality_names=_LATERALITIES,
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
            "status": "Pending review",
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
    return ctx.render("payer_b/appeals.html", rows=rows, reasons=_REASONS)


def _appeal_page(
    ctx: Ctx,
    form: dict[str, str],
    errors: dict[str, str],
    *,
    status: int = 200,
    reattach: bool = False,
) -> Response:
    found = None
    if _CLAIM.match(form["claim_id"]):
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
        found = portal.claim(ctx, PORTAL, claim_id) if _CLAIM.match(claim_id) else None
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
    if not _CLAIM.match(form["claim_id"]):
        errors["claim_id"] = "Enter the claim number: CLM followed by 9 digits."
    else:
        found = portal.claim(ctx, PORTAL, form["claim_id"])
        if found is None:
            errors["claim_id"] = "No claim with this number was found for your organization."
    if form["reason"] not in _REASONS:
        errors["reason"] = "Choose the reason for the appeal."
    if found is not None:
        on_file = portal.appeal_on_file(ctx, found["claim_id"])
        late = found["appeal_deadline"] < ctx.runtime.world.today.isoformat()
        if on_file:
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
            "Appeal not found", "No appeal has this case number.", {"confirmation_number": number}
        )
    files = ctx.db.rows(
        "SELECT filename, size FROM attachments WHERE owner_type = 'appeal' AND owner_id = ? "
        "ORDER BY id",
        (number,),
    )
    return ctx.render("payer_b/appeal.html", a=row, files=files, reasons=_REASONS)


# -- policy and education ------------------------------------------------------------------
@endpoint(SYSTEM, login=True)
async def education(ctx: Ctx) -> Response:
    plans = _plans(ctx)
    wanted = ctx.request.query_params.get("plan", "")
    plan = next((p for p in plans if p["id"] == wanted), plans[0])
    ctx.event("policy.view", {"plan_id": plan["id"]})
    rules = ctx.db.rows("SELECT * FROM payer_rules WHERE plan_id = ? ORDER BY cpt", (plan["id"],))
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

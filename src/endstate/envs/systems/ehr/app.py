"""The EHR: the prior-auth referral worklist, referral detail with tabs, notes, documents."""

from __future__ import annotations

import re
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs.shared import forms
from endstate.envs.shared.web import Ctx, endpoint, redirect, start_endpoint
from endstate.envs.systems.ehr import credentials, denials, dme, notes, search
from endstate.envs.systems.ehr.links import portal_url
from endstate.envs.world import catalog
from endstate.envs.world.chart_files import chart_file

SYSTEM = "ehr"
PAGE_SIZE = 12
TABS: tuple[tuple[str, str], ...] = (
    ("referral", "Referral"),
    ("diagnoses", "Diagnoses"),
    ("services", "Services"),
    ("coverages", "Coverages"),
    ("authorizations", "Authorizations"),
    ("documents", "Documents"),
    ("communications", "Communications"),
)
DETERMINATION = "auth-determination"
_CATEGORIES = notes.CATEGORIES
_AUTH_STATUSES = dict(catalog.AUTH_STATUSES)
_AUTH_NUMBER = re.compile(r"^[A-Za-z0-9-]{4,30}$")
AUTHOR = notes.AUTHOR


def _int(value: str | None, default: int) -> int:
    return int(value) if value and value.isdigit() else default


@endpoint(SYSTEM)
async def home(ctx: Ctx) -> Response:
    return redirect("/worklist")


@endpoint(SYSTEM)
async def worklist(ctx: Ctx) -> Response:
    show = "cleared" if ctx.request.query_params.get("show") == "cleared" else "open"
    rows = ctx.db.rows(
        "SELECT r.*, p.first, p.last, p.dob, pl.name AS plan_name FROM referrals r "
        "JOIN patients p ON p.mrn = r.mrn JOIN coverages c ON c.id = r.coverage_id "
        "JOIN plans pl ON pl.id = c.plan_id WHERE r.worklist_status = ? "
        "ORDER BY r.appointment, r.id",
        (show,),
    )
    params = ctx.request.query_params
    query, plan = search.term(params), search.term(params, "plan")
    plans = sorted({r["plan_name"] for r in rows})
    rows = [
        r
        for r in rows
        if search.matches(r, query, ("id", "first", "last", "mrn", "department"))
        and (not plan or r["plan_name"] == plan)
    ]
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    page = min(max(1, _int(ctx.request.query_params.get("page"), 1)), pages)
    cleared = ctx.request.query_params.get("cleared", "")
    return ctx.render(
        "ehr/worklist.html",
        rows=rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE],
        page=page,
        pages=pages,
        total=len(rows),
        page_size=PAGE_SIZE,
        show=show,
        query=query,
        plan=plan,
        plans=plans,
        kept=search.keep(params, ("show", "q", "plan")),
        today=ctx.runtime.world.clock,
        toast=f"{cleared} cleared from the worklist"
        if re.fullmatch(r"REF-[\d-]+", cleared)
        else "",
    )


def _can_clear(ctx: Ctx, referral_id: str) -> bool:
    found = ctx.db.row(
        "SELECT 1 FROM notes WHERE subject_type = 'referral' AND subject_id = ? AND category = ?",
        (referral_id, DETERMINATION),
    )
    return found is not None


def _tab_values(ctx: Ctx, ref: Any, tab: str) -> dict[str, Any]:
    """What one tab of a referral shows, read when that tab is open."""
    referral_id = ref["id"]
    extra: dict[str, Any] = {}
    if tab == "referral":
        extra["provider"] = ctx.db.row(
            "SELECT * FROM providers WHERE npi = ?", (ref["provider_npi"],)
        )
        extra["referring"] = ctx.db.row(
            "SELECT * FROM providers WHERE npi = ?", (ref["referring_npi"],)
        )
    elif tab == "diagnoses":
        extra["diagnoses"] = ctx.db.rows(
            "SELECT * FROM referral_diagnoses WHERE referral_id = ? ORDER BY seq", (referral_id,)
        )
    elif tab == "services":
        extra["sites"] = {k: v[0].upper() + v[1:] for k, v in catalog.SITES.items()}
        extra["services"] = ctx.db.rows(
            "SELECT * FROM referral_services WHERE referral_id = ? ORDER BY seq", (referral_id,)
        )
    elif tab == "coverages":
        extra["coverages"] = ctx.db.rows(
            "SELECT c.*, pl.name AS plan_name, pl.payer FROM coverages c "
            "JOIN plans pl ON pl.id = c.plan_id WHERE c.mrn = ? ORDER BY c.rank, c.effective DESC",
            (ref["mrn"],),
        )
        plans = ctx.db.rows(
            "SELECT DISTINCT pl.* FROM plans pl JOIN coverages c ON c.plan_id = pl.id "
            "WHERE c.mrn = ? ORDER BY pl.name",
            (ref["mrn"],),
        )
        extra["plans"] = [dict(p) | {"portal_url": portal_url(ctx, p["portal"])} for p in plans]
    elif tab == "documents":
        extra["documents"] = ctx.db.rows(
            "SELECT * FROM documents WHERE mrn = ? ORDER BY date DESC, id", (ref["mrn"],)
        )
        extra["kinds"] = catalog.DOCUMENT_KINDS
        extra["fax_url"] = portal_url(ctx, "fax", f"/compose?mrn={ref['mrn']}")
    elif tab == "authorizations":
        extra["auth_records"] = ctx.db.rows(
            "SELECT * FROM auth_records WHERE referral_id = ? ORDER BY id DESC", (referral_id,)
        )
        extra["auth_statuses"] = catalog.AUTH_STATUSES
        extra["auth_status_names"] = _AUTH_STATUSES
        extra["toast"] = (
            "Authorization recorded" if ctx.request.query_params.get("saved") == "auth" else ""
        )
    elif tab == "communications":
        extra["notes"] = ctx.db.rows(
            "SELECT * FROM notes WHERE subject_type = 'referral' AND subject_id = ? "
            "ORDER BY id DESC",
            (referral_id,),
        )
        extra["category_labels"] = _CATEGORIES
    return extra


def _referral_page(
    ctx: Ctx,
    referral_id: str,
    tab: str,
    *,
    status: int = 200,
    errors: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
    clear_error: str = "",
) -> Response:
    ref = ctx.db.row("SELECT * FROM referrals WHERE id = ?", (referral_id,))
    if ref is None:
        return ctx.not_found(
            "Referral not found", f"No referral {referral_id} exists.", {"referral_id": referral_id}
        )
    if tab not in dict(TABS):
        tab = "referral"
    if ctx.request.method == "GET":
        ctx.event("tab.open", {"referral_id": referral_id, "tab": tab})
    patient = ctx.db.row("SELECT * FROM patients WHERE mrn = ?", (ref["mrn"],))
    values: dict[str, Any] = {
        "ref": ref,
        "patient": patient,
        "tab": tab,
        "tabs": TABS,
        "tab_label": dict(TABS)[tab],
        "can_clear": _can_clear(ctx, referral_id),
        "clear_error": clear_error,
        "errors": errors or {},
        "form": form or {},
        "toast": "Note saved" if ctx.request.query_params.get("saved") == "note" else "",
    }
    values |= _tab_values(ctx, ref, tab)
    return ctx.render("ehr/referral.html", status=status, **values)


@endpoint(SYSTEM)
async def referral(ctx: Ctx) -> Response:
    return _referral_page(
        ctx, ctx.request.path_params["rid"], ctx.request.query_params.get("tab", "referral")
    )


@endpoint(SYSTEM)
async def add_note(ctx: Ctx) -> Response:
    rid = ctx.request.path_params["rid"]
    if ctx.db.row("SELECT 1 FROM referrals WHERE id = ?", (rid,)) is None:
        return _referral_page(ctx, rid, "communications")
    form = notes.read_form(ctx)
    errors = notes.form_errors(form)
    if errors:
        ctx.event("note.invalid", {"referral_id": rid, "errors": sorted(errors)}, accepted=False)
        return _referral_page(ctx, rid, "communications", status=422, errors=errors, form=form)
    detail = {"referral_id": rid, "category": form["category"]}
    notes.save(ctx, SYSTEM, "referral", rid, form, detail)
    return redirect(f"/referrals/{rid}?tab=communications&saved=note")


@endpoint(SYSTEM)
async def record_auth(ctx: Ctx) -> Response:
    """Record the payer's answer on the referral: status, number and the dates it covers."""
    rid = ctx.request.path_params["rid"]
    if ctx.db.row("SELECT 1 FROM referrals WHERE id = ?", (rid,)) is None:
        return _referral_page(ctx, rid, "authorizations")
    form = {k: ctx.field(k) for k in ("auth_status", "auth_number", "valid_from", "valid_through")}
    errors: dict[str, str] = {}
    status = form["auth_status"]
    if status not in _AUTH_STATUSES:
        errors["auth_status"] = "Choose the authorization status."
    needs_number = status in ("approved", "pending", "denied")
    if needs_number and not form["auth_number"]:
        errors["auth_number"] = "Enter the payer's authorization or reference number."
    elif form["auth_number"] and not _AUTH_NUMBER.match(form["auth_number"]):
        errors["auth_number"] = "Use 4 to 30 letters, digits or hyphens (as the payer gave it)."
    dates: dict[str, str | None] = {"valid_from": None, "valid_through": None}
    for key, label in (("valid_from", "Valid from"), ("valid_through", "Valid through")):
        if not form[key]:
            if status == "approved":
                errors[key] = f"{label}: enter the date (MM/DD/YYYY) from the approval."
            continue
        parsed, problem = forms.parse_mdy(form[key])
        if problem:
            errors[key] = f"{label}: {problem}"
        elif parsed is not None:
            dates[key] = parsed.isoformat()
    if (
        dates["valid_from"]
        and dates["valid_through"]
        and dates["valid_through"] < dates["valid_from"]
    ):
        errors["valid_through"] = "Valid through cannot be before valid from."
    if errors:
        ctx.event("auth.invalid", {"referral_id": rid, "errors": sorted(errors)}, accepted=False)
        return _referral_page(ctx, rid, "authorizations", status=422, errors=errors, form=form)
    number = form["auth_number"].upper()
    detail = {"referral_id": rid, "auth_status": status, "auth_number": number}
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="auth.record", detail=detail) as c:
        c.execute(
            "INSERT INTO auth_records (referral_id, auth_status, auth_number, valid_from, "
            "valid_through, author, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                rid,
                status,
                number,
                dates["valid_from"],
                dates["valid_through"],
                AUTHOR,
                ctx.db.clock,
            ),
        )
        c.execute(
            "UPDATE referrals SET auth_status = ?, auth_number = ? WHERE id = ?",
            (status, number or None, rid),
        )
    return redirect(f"/referrals/{rid}?tab=authorizations&saved=auth")


@endpoint(SYSTEM)
async def clear(ctx: Ctx) -> Response:
    rid = ctx.request.path_params["rid"]
    ref = ctx.db.row("SELECT worklist_status FROM referrals WHERE id = ?", (rid,))
    if ref is None:
        return _referral_page(ctx, rid, "referral")
    if ref["worklist_status"] == "cleared":
        ctx.event(
            "worklist.clear_refused", {"referral_id": rid, "reason": "already cleared"}, False
        )
        return _referral_page(
            ctx, rid, "referral", status=409, clear_error="This referral is already cleared."
        )
    if not _can_clear(ctx, rid):
        ctx.event(
            "worklist.clear_refused", {"referral_id": rid, "reason": "no determination"}, False
        )
        return _referral_page(
            ctx,
            rid,
            "referral",
            status=409,
            clear_error="Add an authorization determination note before clearing this referral.",
        )
    with ctx.db.change(
        system=SYSTEM, page=ctx.page, kind="worklist.clear", detail={"referral_id": rid}
    ) as c:
        c.execute("UPDATE referrals SET worklist_status = 'cleared' WHERE id = ?", (rid,))
    return redirect(f"/worklist?cleared={rid}")


@endpoint(SYSTEM)
async def document(ctx: Ctx) -> Response:
    did = ctx.request.path_params["did"]
    doc = ctx.db.row("SELECT * FROM documents WHERE id = ?", (did,))
    if doc is None:
        return ctx.not_found(
            "Document not found", f"No document {did} exists.", {"document_id": did}
        )
    ctx.event("document.view", {"document_id": did})
    patient = ctx.db.row("SELECT * FROM patients WHERE mrn = ?", (doc["mrn"],))
    related = doc["related_id"] or ""
    back = ("", "")
    if related.startswith("REF-"):
        back = (f"/referrals/{related}?tab=documents", "Back to referral")
    elif related.startswith("DME-"):
        back = (f"/dme/{related}?tab=documents", "Back to order")
    elif related.startswith("CLM"):
        back = (f"/denials/{related}?tab=appeal", "Back to claim")
    created = ctx.request.query_params.get("created") == "1"
    return ctx.render(
        "ehr/document.html",
        doc=doc,
        patient=patient,
        back=back[0],
        back_label=back[1],
        toast="Appeal letter saved to the chart" if created else "",
        fax_url=portal_url(ctx, "fax", f"/compose?mrn={doc['mrn']}"),
    )


@endpoint(SYSTEM)
async def download(ctx: Ctx) -> Response:
    did = ctx.request.path_params["did"]
    doc = ctx.db.row("SELECT * FROM documents WHERE id = ?", (did,))
    if doc is None:
        ctx.event("page.not_found", {"document_id": did}, accepted=False)
        return Response("Document not found", status_code=404, media_type="text/plain")
    ctx.event("document.download", {"document_id": did})
    file = chart_file(did, doc["title"], doc["text"], doc["format"], doc["author"], doc["date"])
    return Response(
        file.data,
        media_type=file.media_type,
        headers={"Content-Disposition": f'attachment; filename="{file.filename}"'},
    )


ROUTES = [
    Route("/start", start_endpoint(SYSTEM, "/worklist")),
    Route("/", home),
    Route("/worklist", worklist),
    Route("/referrals/{rid}", referral),
    Route("/referrals/{rid}/notes", add_note, methods=["POST"]),
    Route("/referrals/{rid}/clear", clear, methods=["POST"]),
    Route("/referrals/{rid}/authorization", record_auth, methods=["POST"]),
    Route("/documents/{did}", document),
    Route("/documents/{did}/download", download),
    *credentials.ROUTES,
    *denials.ROUTES,
    *dme.ROUTES,
]

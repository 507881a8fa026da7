"""The EHR's DME order queue: orders, chart review for the supplier's paperwork, notes.

The order lists which documents the supplier needs; the chart holds the candidates, decoys
included (a stale face-to-face note, documents of other orders). Sending is done in the fax
portal, reached from here with the supplier's name and number filled in.
"""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs import catalog, dme_catalog
from endstate.envs.systems.ehr import notes
from endstate.envs.systems.ehr.links import portal_url
from endstate.envs.web import Ctx, endpoint, redirect

SYSTEM = "ehr"
PAGE_SIZE = 12
TABS: tuple[tuple[str, str], ...] = (
    ("order", "Order"),
    ("documents", "Chart documents"),
    ("notes", "Notes"),
)
_CATEGORIES = notes.CATEGORIES
_criteria = {item.hcpcs: item.criterion for item in dme_catalog.DME_ITEMS}


@endpoint(SYSTEM)
async def queue(ctx: Ctx) -> Response:
    rows = ctx.db.rows(
        "SELECT o.*, p.first, p.last, p.dob, pl.name AS plan_name FROM dme_orders o "
        "JOIN patients p ON p.mrn = o.mrn JOIN coverages c ON c.id = o.coverage_id "
        "JOIN plans pl ON pl.id = c.plan_id ORDER BY o.ordered, o.id"
    )
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    raw = ctx.request.query_params.get("page", "1")
    page = min(max(1, int(raw) if raw.isdigit() else 1), pages)
    return ctx.render(
        "ehr/dme_queue.html",
        rows=rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE],
        page=page,
        pages=pages,
        total=len(rows),
        page_size=PAGE_SIZE,
        today=ctx.runtime.world.clock,
    )


def _page(
    ctx: Ctx,
    order_id: str,
    tab: str,
    *,
    status: int = 200,
    errors: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
) -> Response:
    order = ctx.db.row("SELECT * FROM dme_orders WHERE id = ?", (order_id,))
    if order is None:
        return ctx.not_found(
            "Order not found", f"No DME order {order_id} exists.", {"order_id": order_id}
        )
    if tab not in dict(TABS):
        tab = "order"
    if ctx.request.method == "GET":
        ctx.event("dme.tab.open", {"order_id": order_id, "tab": tab})
    patient = ctx.db.row("SELECT * FROM patients WHERE mrn = ?", (order["mrn"],))
    query = urlencode(
        {"mrn": order["mrn"], "recipient": order["supplier"], "fax_number": order["supplier_fax"]}
    )
    fax_url = portal_url(ctx, "fax", quote(f"/compose?{query}", safe="/"))
    return ctx.render(
        "ehr/dme_order.html",
        status=status,
        order=order,
        patient=patient,
        coverage=ctx.db.row(
            "SELECT c.*, pl.name AS plan_name FROM coverages c JOIN plans pl ON pl.id = c.plan_id "
            "WHERE c.id = ?",
            (order["coverage_id"],),
        ),
        ordering=ctx.db.row("SELECT * FROM providers WHERE npi = ?", (order["ordering_npi"],)),
        required=[
            catalog.DOCUMENT_KINDS.get(k, k) for k in json.loads(order["required_documents"])
        ],
        documents=ctx.db.rows(
            "SELECT * FROM documents WHERE mrn = ? ORDER BY date DESC, id", (order["mrn"],)
        )
        if tab == "documents"
        else [],
        notes=ctx.db.rows(
            "SELECT * FROM notes WHERE subject_type = 'dme_order' AND subject_id = ? "
            "ORDER BY id DESC",
            (order_id,),
        ),
        kinds=catalog.DOCUMENT_KINDS,
        criterion=_criteria.get(order["hcpcs"]),
        category_labels=_CATEGORIES,
        tab=tab,
        tabs=TABS,
        tab_label=dict(TABS)[tab],
        fax_url=fax_url,
        errors=errors or {},
        form=form or {},
        toast="Note saved" if ctx.request.query_params.get("saved") == "note" else "",
    )


@endpoint(SYSTEM)
async def order(ctx: Ctx) -> Response:
    return _page(ctx, ctx.request.path_params["oid"], ctx.request.query_params.get("tab", "order"))


@endpoint(SYSTEM)
async def add_note(ctx: Ctx) -> Response:
    oid = ctx.request.path_params["oid"]
    if ctx.db.row("SELECT 1 FROM dme_orders WHERE id = ?", (oid,)) is None:
        return _page(ctx, oid, "notes")
    form = notes.read_form(ctx)
    errors = notes.form_errors(form)
    if errors:
        ctx.event("note.invalid", {"order_id": oid, "errors": sorted(errors)}, accepted=False)
        return _page(ctx, oid, "notes", status=422, errors=errors, form=form)
    detail = {"order_id": oid, "category": form["category"]}
    notes.save(ctx, SYSTEM, "dme_order", oid, form, detail)
    return redirect(f"/dme/{oid}?tab=notes&saved=note")


ROUTES = [
    Route("/dme", queue),
    Route("/dme/{oid}", order),
    Route("/dme/{oid}/notes", add_note, methods=["POST"]),
]

"""The EHR's denials area: worklist, claim detail with tabs, and triage (disposition + note)."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs import catalog
from endstate.envs.web import Ctx, endpoint, redirect
from endstate.envs.world import mdy

SYSTEM = "ehr"
PAGE_SIZE = 12
TABS: tuple[tuple[str, str], ...] = (
    ("claim", "Claim"),
    ("lines", "Line items"),
    ("remittance", "Remittance"),
    ("history", "History"),
    ("notes", "Notes"),
)
_DISPOSITIONS = dict(catalog.DISPOSITIONS)


@endpoint(SYSTEM)
async def denials(ctx: Ctx) -> Response:
    rows = ctx.db.rows(
        "SELECT d.*, p.first, p.last, pl.name AS plan_name, "
        "(SELECT grp || '-' || carc FROM denial_lines x WHERE x.claim_id = d.claim_id "
        " AND x.carc != '45' ORDER BY line LIMIT 1) AS reason "
        "FROM denials d JOIN patients p ON p.mrn = d.mrn JOIN plans pl ON pl.id = d.plan_id "
        "WHERE d.worklist_status = 'open' ORDER BY d.appeal_deadline, d.claim_id"
    )
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    raw = ctx.request.query_params.get("page", "1")
    page = min(max(1, int(raw) if raw.isdigit() else 1), pages)
    done = ctx.request.query_params.get("triaged", "")
    return ctx.render(
        "ehr/denials.html",
        rows=rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE],
        page=page,
        pages=pages,
        total=len(rows),
        today=ctx.runtime.world.clock,
        toast=f"{done} triaged" if done.startswith("CLM") and done[3:].isdigit() else "",
    )


def _remittance(d: Any, lines: list[Any], plan: Any) -> str:
    out = [
        f"{plan['payer'].upper()} — REMITTANCE ADVICE",
        f"EFT trace {d['eft_trace']}    Paid {mdy(d['denied'])}",
        f"Claim {d['claim_id']}  Service {mdy(d['service_date'])}",
        "",
        "LN  CPT    MOD  UNITS     BILLED    ALLOWED       PAID  ADJ      REMARKS",
    ]
    for x in lines:
        out.append(
            f"{x['line']:<3} {x['cpt']:<6} {x['modifier'] or '':<4} {x['units']:>5} "
            f"{x['billed']:>10.2f} {x['allowed']:>10.2f} {x['paid']:>10.2f}  "
            f"{x['grp']}-{x['carc']:<5} {', '.join(json.loads(x['rarcs']))}"
        )
    codes = {(x["grp"], x["carc"]): x["carc_text"] for x in lines}
    out += ["", "ADJUSTMENT REASONS"]
    out += [f"{g}-{c}: {text}" for (g, c), text in sorted(codes.items())]
    remarks = sorted({r for x in lines for r in json.loads(x["rarcs"])})
    if remarks:
        out += ["", "REMARKS"] + [f"{r}: {catalog.RARC_TEXT.get(r, '')}" for r in remarks]
    return "\n".join(out)


def _page(
    ctx: Ctx,
    claim_id: str,
    tab: str,
    *,
    status: int = 200,
    errors: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
) -> Response:
    d = ctx.db.row("SELECT * FROM denials WHERE claim_id = ?", (claim_id,))
    if d is None:
        ctx.event("page.not_found", {"claim_id": claim_id}, accepted=False)
        return ctx.render(
            "message.html",
            status=404,
            view=False,
            title="Claim not found",
            message=f"No claim {claim_id} exists.",
        )
    if tab not in dict(TABS):
        tab = "claim"
    if ctx.request.method == "GET":
        ctx.event("denial.tab.open", {"claim_id": claim_id, "tab": tab})
    lines = ctx.db.rows("SELECT * FROM denial_lines WHERE claim_id = ? ORDER BY line", (claim_id,))
    plan = ctx.db.row("SELECT * FROM plans WHERE id = ?", (d["plan_id"],))
    added = ctx.db.rows(
        "SELECT * FROM notes WHERE subject_type = 'denial' AND subject_id = ? ORDER BY id",
        (claim_id,),
    )
    notes = [{"subject": "", **n} for n in json.loads(d["notes"])] + [
        {"date": n["created_at"], "author": n["author"], "subject": n["subject"], "text": n["body"]}
        for n in added
    ]
    return ctx.render(
        "ehr/denial.html",
        status=status,
        d=d,
        patient=ctx.db.row("SELECT * FROM patients WHERE mrn = ?", (d["mrn"],)),
        coverage=ctx.db.row("SELECT * FROM coverages WHERE id = ?", (d["coverage_id"],)),
        provider=ctx.db.row("SELECT * FROM providers WHERE npi = ?", (d["provider_npi"],)),
        plan=plan,
        lines=[dict(x) | {"rarcs": json.loads(x["rarcs"])} for x in lines],
        remittance=_remittance(d, lines, plan),
        history=json.loads(d["history"]),
        notes=notes,
        tab=tab,
        tabs=TABS,
        tab_label=dict(TABS)[tab],
        dispositions=catalog.DISPOSITIONS,
        dispositions_map=_DISPOSITIONS,
        errors=errors or {},
        form=form or {},
        toast="",
    )


@endpoint(SYSTEM)
async def denial(ctx: Ctx) -> Response:
    return _page(ctx, ctx.request.path_params["cid"], ctx.request.query_params.get("tab", "claim"))


@endpoint(SYSTEM)
async def triage(ctx: Ctx) -> Response:
    cid = ctx.request.path_params["cid"]
    if ctx.db.row("SELECT 1 FROM denials WHERE claim_id = ?", (cid,)) is None:
        return _page(ctx, cid, "claim")
    form = {"disposition": ctx.field("disposition"), "triage_note": ctx.field("triage_note")}
    errors: dict[str, str] = {}
    if form["disposition"] not in _DISPOSITIONS:
        errors["disposition"] = "Choose a disposition."
    if len(form["triage_note"]) < 10:
        errors["triage_note"] = "Write a triage note (at least 10 characters)."
    elif len(form["triage_note"]) > 5000:
        errors["triage_note"] = "The triage note must be 5000 characters or fewer."
    if errors:
        ctx.event("triage.invalid", {"claim_id": cid, "errors": sorted(errors)}, accepted=False)
        return _page(ctx, cid, "claim", status=422, errors=errors, form=form)
    label = _DISPOSITIONS[form["disposition"]]
    detail = {"claim_id": cid, "disposition": form["disposition"]}
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="denial.triage", detail=detail) as c:
        c.execute(
            "UPDATE denials SET disposition = ?, worklist_status = 'triaged' WHERE claim_id = ?",
            (form["disposition"], cid),
        )
        c.execute(
            "INSERT INTO notes (system, subject_type, subject_id, category, subject, body, "
            "author, created_at) VALUES (?, 'denial', ?, 'triage', ?, ?, ?, ?)",
            (SYSTEM, cid, f"Triage: {label}", form["triage_note"], "J. Rivera", ctx.db.clock),
        )
    return redirect(f"/denials?triaged={cid}")


ROUTES = [
    Route("/denials", denials),
    Route("/denials/{cid}", denial),
    Route("/denials/{cid}/triage", triage, methods=["POST"]),
]

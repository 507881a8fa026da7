"""Errands that leave the practice a record: a request to send the patient's records to a new
practice (by fax), and a change of preferred pharmacy (from the pharmacy directory, whose
branches of one chain differ only in their store number and address)."""

from __future__ import annotations

from starlette.responses import Response

from endstate.envs.shared import forms
from endstate.envs.shared.web import Ctx, endpoint, redirect
from endstate.envs.systems.patient_portal.common import SYSTEM, patient

SCOPES: tuple[tuple[str, str], ...] = (
    ("complete", "Complete medical record"),
    ("two-years", "Last two years"),
    ("immunizations", "Immunizations only"),
    ("labs", "Lab results only"),
)
FIELDS = ("practice", "fax_number", "scope", "note")


def _records_page(
    ctx: Ctx, form: dict[str, str], errors: dict[str, str], status: int = 200
) -> Response:
    done = ctx.db.rows(
        "SELECT * FROM pp_records_requests WHERE patient_id = ? ORDER BY seq DESC",
        (patient(ctx)["id"],),
    )
    wanted = ctx.request.query_params.get("submitted", "") if status == 200 else ""
    submitted = next((r["id"] for r in done if r["id"] == wanted), "")
    return ctx.render(
        "patient_portal/records.html",
        status=status,
        form=form,
        errors=errors,
        scopes=SCOPES,
        scope_names=dict(SCOPES),
        done=done,
        fmt=forms.format_phone,
        toast=f"Request {submitted} submitted." if submitted else "",
    )


@endpoint(SYSTEM, login=True)
async def records_page(ctx: Ctx) -> Response:
    return _records_page(ctx, dict.fromkeys(FIELDS, ""), {})


@endpoint(SYSTEM, login=True)
async def records_request(ctx: Ctx) -> Response:
    form = {k: ctx.field(k) for k in FIELDS}
    errors: dict[str, str] = {}
    if not form["practice"]:
        errors["practice"] = "Enter the name of the new practice."
    digits, problem = forms.fax_digits(form["fax_number"])
    if problem:
        errors["fax_number"] = problem
    if form["scope"] not in dict(SCOPES):
        errors["scope"] = "Choose which records to send."
    if len(form["note"]) > 2000:
        errors["note"] = "The note must be 2000 characters or fewer."
    if errors:
        ctx.event("records_request.invalid", {"errors": sorted(errors)}, accepted=False)
        return _records_page(ctx, form, errors, status=422)
    seq = int(ctx.db.rows("SELECT count(*) FROM pp_records_requests")[0][0]) + 1
    request_id = f"RR-{ctx.episode.code('patient_portal.records', seq, 8)}"
    detail = {"request_id": request_id, "fax_number": digits, "scope": form["scope"]}
    with ctx.db.change(
        system=SYSTEM, page=ctx.page, kind="records_request.submit", detail=detail
    ) as c:
        c.execute(
            "INSERT INTO pp_records_requests (id, seq, patient_id, practice, fax_number, scope, "
            "note, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                request_id,
                seq,
                patient(ctx)["id"],
                form["practice"],
                digits,
                form["scope"],
                form["note"],
                ctx.db.clock,
            ),
        )
    return redirect(f"/records-request?submitted={request_id}")


def _pharmacy_page(ctx: Ctx, error: str = "", status: int = 200) -> Response:
    me = patient(ctx)
    return ctx.render(
        "patient_portal/pharmacy.html",
        status=status,
        current=ctx.db.row("SELECT * FROM pp_pharmacies WHERE id = ?", (me["pharmacy_id"],)),
        pharmacies=[
            (p["id"], f"{p['name']} — {p['address']}")
            for p in ctx.db.rows("SELECT * FROM pp_pharmacies ORDER BY name, id")
        ],
        error=error,
        toast="Your preferred pharmacy was updated." if status == 200 and _updated(ctx) else "",
    )


def _updated(ctx: Ctx) -> bool:
    """Whether the redirect's confirmation is backed by a change on record."""
    if not ctx.request.query_params.get("updated"):
        return False
    done = ctx.db.row(
        "SELECT 1 FROM pp_pharmacy_changes WHERE patient_id = ?", (patient(ctx)["id"],)
    )
    return done is not None


@endpoint(SYSTEM, login=True)
async def pharmacy_page(ctx: Ctx) -> Response:
    return _pharmacy_page(ctx)


@endpoint(SYSTEM, login=True)
async def change_pharmacy(ctx: Ctx) -> Response:
    me = patient(ctx)
    chosen = ctx.field("pharmacy_id")
    error = ""
    if ctx.db.row("SELECT 1 FROM pp_pharmacies WHERE id = ?", (chosen,)) is None:
        error = "Choose a pharmacy."
    elif chosen == me["pharmacy_id"]:
        error = "This is already your preferred pharmacy."
    if error:
        ctx.event("pharmacy.invalid", {"errors": ["pharmacy_id"]}, accepted=False)
        return _pharmacy_page(ctx, error, status=422)
    detail = {"from_pharmacy_id": me["pharmacy_id"], "to_pharmacy_id": chosen}
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="pharmacy.change", detail=detail) as c:
        c.execute("UPDATE pp_patients SET pharmacy_id = ? WHERE id = ?", (chosen, me["id"]))
        c.execute(
            "INSERT INTO pp_pharmacy_changes (patient_id, from_pharmacy_id, to_pharmacy_id, "
            "created_at) VALUES (?, ?, ?, ?)",
            (me["id"], me["pharmacy_id"], chosen, ctx.db.clock),
        )
    return redirect("/pharmacy?updated=1")

"""The billing page: the insurance on file (as a real portal shows it: the plan, the member ID,
the group and the office-visit copay), and the ledger. Nothing is listed until a date range is
submitted, the range filters on the posting date (not the date of service), and the "Show"
filter's default leaves payments out — so the total of what is shown is not what is owed."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from endstate.envs.shared import forms
from endstate.envs.shared.web import Ctx, endpoint
from endstate.envs.systems.patient_portal.common import SYSTEM, amount, patient

SHOW: tuple[tuple[str, str], ...] = (
    ("charges", "Charges and adjustments"),  # the default: payments are hidden
    ("payments", "Payments"),
    ("all", "All transactions"),
)
KINDS = {"charges": ("charge", "adjustment"), "payments": ("payment",)}
KIND_LABELS = {"charge": "Charge", "payment": "Payment", "adjustment": "Adjustment"}


def _range(form: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """ISO bounds of a submitted range, or a message per field."""
    errors: dict[str, str] = {}
    bounds: dict[str, str] = {}
    for key, label in (("from", "From"), ("to", "To")):
        if not form[key]:
            errors[key] = f"{label}: enter a date (MM/DD/YYYY)."
            continue
        day, problem = forms.parse_mdy(form[key])
        if problem:
            errors[key] = f"{label}: {problem}"
        elif day is not None:
            bounds[key] = day.isoformat()
    if len(bounds) == 2 and bounds["to"] < bounds["from"]:
        errors["to"] = "To cannot be before From."
    return bounds, errors


def _lines(ctx: Ctx, patient_id: str, bounds: dict[str, str], show: str) -> list[Any]:
    kinds = KINDS.get(show, ("charge", "payment", "adjustment"))
    marks = ", ".join("?" * len(kinds))
    return ctx.db.rows(
        f"SELECT * FROM pp_ledger WHERE patient_id = ? AND posted BETWEEN ? AND ? "
        f"AND kind IN ({marks}) ORDER BY posted, id",
        (patient_id, bounds["from"], bounds["to"], *kinds),
    )


@endpoint(SYSTEM, login=True)
async def ledger(ctx: Ctx) -> Response:
    q = ctx.request.query_params
    form = {"from": q.get("from", "").strip(), "to": q.get("to", "").strip()}
    show = q.get("show", "charges")
    show = show if show in dict(SHOW) else "charges"
    me = patient(ctx)
    values: dict[str, Any] = {"form": form, "show": show, "choices": SHOW, "errors": {}}
    values["insurance"] = ctx.db.row(
        "SELECT * FROM pp_insurance WHERE patient_id = ? AND termination IS NULL", (me["id"],)
    )
    values |= {"rows": None, "total": "", "kinds": KIND_LABELS, "amount": amount}
    if "from" in q or "to" in q:
        bounds, errors = _range(form)
        if errors:
            ctx.event("ledger.invalid", {"errors": sorted(errors)}, accepted=False)
            return ctx.render(
                "patient_portal/billing.html", status=422, **values | {"errors": errors}
            )
        rows = _lines(ctx, me["id"], bounds, show)
        ctx.event(
            "ledger.search",
            {"from": bounds["from"], "to": bounds["to"], "show": show, "rows": len(rows)},
        )
        total = round(sum(r["amount"] for r in rows), 2)
        values |= {"rows": rows, "total": amount(total)}
    return ctx.render("patient_portal/billing.html", **values)

"""The health record: lab results, imaging, problems, allergies, medications, prescriptions,
immunizations and visits — each the whole list on one page, as real portals show them.

The failure modes are kept on purpose (docs/patient-portal.md): lab dates printed as
`08/17 00:00:00/2017` with an empty Range column, oldest first; Medications (every course
ever) and Prescriptions (what is current) under identical headers with nothing saying
which is which; a problem list where only a blank End Date marks what is active; an
allergy table that is simply empty when there are none.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict

from markupsafe import Markup
from starlette.responses import Response

from endstate.envs.shared.web import Ctx, endpoint
from endstate.envs.systems.patient_portal.common import SYSTEM, lab_date, patient, provider_names

# Medications and Prescriptions share these, word for word.
DRUG_COLUMNS = ("Drug", "Dosage", "Directions", "Start Date", "Prescriber")


# A patient's lab rows as table HTML, by (template hash, patient id). No page writes
# pp_labs, so every episode of one template shows the same rows: rendering up to 4,105 of
# them once per patient, not once per view, keeps the longest page's server time small.
_LAB_ROWS: OrderedDict[tuple[str, str], Markup] = OrderedDict()
_LAB_ROWS_KEPT = 64


def _lab_rows(ctx: Ctx, patient_id: str) -> Markup:
    key = (ctx.runtime.template_sha256, patient_id)
    found = _LAB_ROWS.get(key)
    if found is not None:
        _LAB_ROWS.move_to_end(key)
        return found
    rows = ctx.db.rows(
        "SELECT l.collected, t.test, l.value, t.units FROM pp_labs l "
        "JOIN pp_lab_tests t ON t.loinc = l.loinc WHERE l.patient_id = ? ORDER BY l.seq",
        (patient_id,),
    )
    html = Markup("").join(
        Markup("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td></td></tr>\n").format(
            lab_date(r["collected"]), r["test"], r["value"], r["units"]
        )
        for r in rows
    )
    _LAB_ROWS[key] = html
    while len(_LAB_ROWS) > _LAB_ROWS_KEPT:
        _LAB_ROWS.popitem(last=False)
    return html


@endpoint(SYSTEM, login=True)
async def labs(ctx: Ctx) -> Response:
    return ctx.render("patient_portal/labs.html", rows=_lab_rows(ctx, patient(ctx)["id"]))


@endpoint(SYSTEM, login=True)
async def imaging(ctx: Ctx) -> Response:
    """Every study, newest first, with the impression its report gave."""
    rows = ctx.db.rows(
        "SELECT * FROM pp_imaging WHERE patient_id = ? ORDER BY date DESC, id DESC",
        (patient(ctx)["id"],),
    )
    return ctx.render("patient_portal/imaging.html", rows=rows, names=provider_names(ctx))


@endpoint(SYSTEM, login=True)
async def problems(ctx: Ctx) -> Response:
    return ctx.render("patient_portal/problems.html", rows=_own(ctx, "pp_conditions", "onset, id"))


@endpoint(SYSTEM, login=True)
async def allergies(ctx: Ctx) -> Response:
    return ctx.render("patient_portal/allergies.html", rows=_own(ctx, "pp_allergies", "noted, id"))


@endpoint(SYSTEM, login=True)
async def medications(ctx: Ctx) -> Response:
    """Every course ever taken: stopped ones look exactly like current ones."""
    rows = ctx.db.rows(
        "SELECT drug, dosage, directions, start AS started, prescriber_id FROM pp_medications "
        "WHERE patient_id = ? ORDER BY start, id",
        (patient(ctx)["id"],),
    )
    return _drugs(ctx, "Medications", rows)


@endpoint(SYSTEM, login=True)
async def prescriptions(ctx: Ctx) -> Response:
    """What is current: its Start Date is the latest renewal, not the first start."""
    rows = ctx.db.rows(
        "SELECT drug, dosage, directions, written AS started, prescriber_id "
        "FROM pp_prescriptions WHERE patient_id = ? ORDER BY drug, id",
        (patient(ctx)["id"],),
    )
    return _drugs(ctx, "Prescriptions", rows)


def _own(ctx: Ctx, table: str, order: str) -> list[sqlite3.Row]:
    """Every row of a per-patient table that belongs to the signed-in patient."""
    return ctx.db.rows(
        f"SELECT * FROM {table} WHERE patient_id = ? ORDER BY {order}", (patient(ctx)["id"],)
    )


def _drugs(ctx: Ctx, title: str, rows: list[sqlite3.Row]) -> Response:
    return ctx.render(
        "patient_portal/drugs.html",
        title=title,
        nav=title.lower(),
        columns=DRUG_COLUMNS,
        rows=rows,
        names=provider_names(ctx),
    )


@endpoint(SYSTEM, login=True)
async def immunizations(ctx: Ctx) -> Response:
    return ctx.render(
        "patient_portal/immunizations.html", rows=_own(ctx, "pp_immunizations", "given DESC, id")
    )


@endpoint(SYSTEM, login=True)
async def visits(ctx: Ctx) -> Response:
    rows = ctx.db.rows(
        "SELECT * FROM pp_encounters WHERE patient_id = ? ORDER BY date DESC, id DESC",
        (patient(ctx)["id"],),
    )
    kinds = {
        "wellness": "Wellness",
        "ambulatory": "Office visit",
        "followup": "Follow-up",
        "urgent": "Urgent care",
    }
    return ctx.render(
        "patient_portal/visits.html", rows=rows, kinds=kinds, names=provider_names(ctx)
    )

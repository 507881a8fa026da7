"""The fax portal: compose (recipient, number, cover note, chart documents and files uploaded
from disk) → transmission. An upload is kept with its name and hash, and matched back to the
chart document whose downloaded bytes it repeats."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs.shared import forms, portal
from endstate.envs.shared.web import Ctx, endpoint, redirect, start_endpoint
from endstate.envs.world import catalog

SYSTEM = "fax"
CHARS_PER_PAGE = 1800
BYTES_PER_IMAGE_PAGE = 60_000  # a scanned page, roughly
_MRN = re.compile(r"^MRN\d{8}$")


@endpoint(SYSTEM)
async def home(ctx: Ctx) -> Response:
    return redirect("/compose")


def _documents(ctx: Ctx, mrn: str) -> list[Any]:
    return ctx.db.rows("SELECT * FROM documents WHERE mrn = ? ORDER BY date DESC, id", (mrn,))


def _compose(
    ctx: Ctx,
    form: dict[str, str],
    chosen: list[str],
    errors: dict[str, str],
    status: int = 200,
    reattach: bool = False,
) -> Response:
    mrn = form["patient_mrn"].upper()
    patient = ctx.db.row("SELECT * FROM patients WHERE mrn = ?", (mrn,)) if mrn else None
    if mrn and patient is None and "patient_mrn" not in errors:
        errors["patient_mrn"] = "No patient has this MRN."
    return ctx.render(
        "fax/compose.html",
        status=status,
        form=form,
        chosen=chosen,
        errors=errors,
        patient=patient,
        documents=_documents(ctx, mrn) if patient else [],
        kinds=catalog.DOCUMENT_KINDS,
        reattach=reattach,
    )


def upload_pages(filename: str, data: bytes) -> int:
    """Pages an uploaded file takes on the wire: text by length, anything else by size."""
    if filename.lower().endswith(".txt"):
        text = data.decode("utf-8", errors="replace")
        return max(1, -(-len(text) // CHARS_PER_PAGE))
    return max(1, -(-len(data) // BYTES_PER_IMAGE_PAGE))


@endpoint(SYSTEM)
async def compose_page(ctx: Ctx) -> Response:
    q = ctx.request.query_params
    form = {
        "patient_mrn": q.get("mrn", "").strip(),
        "recipient": q.get("recipient", "").strip(),
        "fax_number": q.get("fax_number", "").strip(),
        "cover_note": q.get("cover_note", "").strip(),
    }
    if form["patient_mrn"]:
        ctx.event("patient.lookup", {"mrn": form["patient_mrn"]})
    return _compose(ctx, form, [], {})


@endpoint(SYSTEM)
async def send(ctx: Ctx) -> Response:
    assert ctx.form is not None
    form = {k: ctx.field(k) for k in ("patient_mrn", "recipient", "fax_number", "cover_note")}
    form["patient_mrn"] = form["patient_mrn"].upper()
    chosen = [v for v in ctx.form.getlist("document_ids") if isinstance(v, str)]
    errors: dict[str, str] = {}
    if not _MRN.match(form["patient_mrn"]):
        errors["patient_mrn"] = "Enter the patient's MRN (MRN followed by 8 digits)."
    if not form["recipient"]:
        errors["recipient"] = "Enter the recipient's name."
    digits, problem = forms.fax_digits(form["fax_number"])
    if problem:
        errors["fax_number"] = problem
    if len(form["cover_note"]) > 2000:
        errors["cover_note"] = "The cover note must be 2000 characters or fewer."
    docs = {d["id"]: d for d in _documents(ctx, form["patient_mrn"])}
    files, problem = await portal.read_uploads(ctx)
    if problem:
        errors["attachments"] = problem
    if not chosen and not files and not problem:
        errors["document_ids"] = "Choose at least one document to send."
    elif any(d not in docs for d in chosen):
        errors["document_ids"] = "A chosen document does not belong to this patient."
    if errors:
        ctx.event("fax.invalid", {"errors": sorted(errors)}, accepted=False)
        return _compose(ctx, form, chosen, errors, status=422, reattach=bool(files))
    seq = int(ctx.db.rows("SELECT count(*) FROM faxes")[0][0]) + 1
    fax_id = f"FX-{ctx.episode.code('fax.transmission', seq, 8)}"
    pages = 1 + sum(-(-len(docs[d]["text"]) // CHARS_PER_PAGE) for d in chosen)
    pages += sum(upload_pages(name, data) for name, _, data in files)
    detail: dict[str, Any] = {"fax_id": fax_id, "fax_number": digits, "document_ids": chosen}
    if files:
        detail["uploads"] = [
            {"filename": name, "sha256": hashlib.sha256(data).hexdigest()}
            for name, _, data in files
        ]
    with ctx.db.change(system=SYSTEM, page=ctx.page, kind="fax.send", detail=detail) as c:
        c.execute(
            "INSERT INTO faxes (id, seq, recipient, fax_number, cover_note, patient_mrn, pages, "
            "status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'sent', ?)",
            (
                fax_id,
                seq,
                form["recipient"],
                digits,
                form["cover_note"],
                form["patient_mrn"],
                pages,
                ctx.db.clock,
            ),
        )
        c.executemany(
            "INSERT INTO fax_attachments (fax_id, seq, document_id) VALUES (?, ?, ?)",
            [(fax_id, i, d) for i, d in enumerate(dict.fromkeys(chosen), 1)],
        )
        portal.store_uploads(ctx, c, "fax", fax_id, files)
    return redirect(f"/transmissions/{fax_id}")


@endpoint(SYSTEM)
async def transmission(ctx: Ctx) -> Response:
    fax_id = ctx.request.path_params["fax_id"]
    fax = ctx.db.row("SELECT * FROM faxes WHERE id = ?", (fax_id,))
    if fax is None:
        return ctx.not_found(
            "Transmission not found", "No fax transmission has this id.", {"fax_id": fax_id}
        )
    docs = ctx.db.rows(
        "SELECT d.* FROM fax_attachments a JOIN documents d ON d.id = a.document_id "
        "WHERE a.fax_id = ? ORDER BY a.seq",
        (fax_id,),
    )
    uploads = ctx.db.rows(
        "SELECT filename, size, sha256 FROM attachments WHERE owner_type = 'fax' AND owner_id = ? "
        "ORDER BY id",
        (fax_id,),
    )
    return ctx.render(
        "fax/transmission.html",
        fax=fax,
        docs=docs,
        uploads=uploads,
        number=forms.format_phone(fax["fax_number"]),
        kinds=catalog.DOCUMENT_KINDS,
    )


@endpoint(SYSTEM)
async def sent(ctx: Ctx) -> Response:
    rows = ctx.db.rows("SELECT * FROM faxes ORDER BY seq DESC")
    return ctx.render("fax/sent.html", rows=rows, fmt=forms.format_phone)


ROUTES = [
    Route("/start", start_endpoint(SYSTEM, "/compose")),
    Route("/", home),
    Route("/compose", compose_page),
    Route("/compose", send, methods=["POST"]),
    Route("/transmissions/{fax_id}", transmission),
    Route("/sent", sent),
]

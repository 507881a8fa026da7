"""The EHR's denials area: worklist, claim detail with tabs, and triage (disposition + note)."""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs.shared.web import Ctx, endpoint, redirect
from endstate.envs.systems.ehr import notes, search
from endstate.envs.systems.ehr.links import portal_url
from endstate.envs.world import catalog, mdy
from endstate.rules.denials import DENIAL_ACTIONS

SYSTEM = "ehr"
PAGE_SIZE = 12
TABS: tuple[tuple[str, str], ...] = (
    ("claim", "Claim"),
    ("lines", "Line items"),
    ("remittance", "Remittance"),
    ("history", "History"),
    ("notes", "Notes"),
    ("appeal", "Appeal letter"),
)
_DISPOSITIONS = dict(catalog.DISPOSITIONS)
_BASES = dict(catalog.APPEAL_BASES)
AUTHOR = notes.AUTHOR


@endpoint(SYSTEM)
async def denials(ctx: Ctx) -> Response:
    rows = ctx.db.rows(
        "SELECT d.*, p.first, p.last, pl.name AS plan_name, "
        "(SELECT grp || '-' || carc FROM denial_lines x WHERE x.claim_id = d.claim_id "
        " AND x.carc != '45' ORDER BY line LIMIT 1) AS reason "
        "FROM denials d JOIN patients p ON p.mrn = d.mrn JOIN plans pl ON pl.id = d.plan_id "
        "WHERE d.worklist_status = 'open' ORDER BY d.appeal_deadline, d.claim_id"
    )
    params = ctx.request.query_params
    query, reason = search.term(params), search.term(params, "reason")
    passed = params.get("deadline") == "passed"
    today = ctx.runtime.world.today.isoformat()
    reasons = sorted({r["reason"] for r in rows if r["reason"]})
    rows = [
        r
        for r in rows
        if search.matches(r, query, ("claim_id", "first", "last", "mrn", "plan_name"))
        and (not reason or r["reason"] == reason)
        and (not passed or r["appeal_deadline"] < today)
    ]
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
        page_size=PAGE_SIZE,
        today=ctx.runtime.world.clock,
        query=query,
        reason=reason,
        reasons=reasons,
        passed=passed,
        kept=search.keep(params, ("q", "reason", "deadline")),
        toast=f"{done} triaged" if done.startswith("CLM") and done[3:].isdigit() else "",
    )


def _remittance(d: Any, lines: list[Any], plan: Any) -> str:
    out = [
        f"{plan['payer'].upper()} — REMITTANCE ADVICE",
        f"EFT trace {d['eft_trace']}    Paid {mdy(d['denied'])}",
        f"Claim {d['claim_id']}  Service {mdy(d['service_date'])}",
        "",
        "LN  CPT    MOD  UNITS     BILLED    ALLOWED       PAID  ADJ         AMOUNT  REMARKS",
    ]
    codes = {(x["grp"], x["carc"]): x["carc_text"] for x in lines}
    for x in lines:
        adjustments = _adjustments(x)
        first = adjustments[0] if adjustments else (x["grp"], x["carc"], 0.0)
        out.append(
            f"{x['line']:<3} {x['cpt']:<6} {x['modifier'] or '':<4} {x['units']:>5} "
            f"{x['billed']:>10.2f} {x['allowed']:>10.2f} {x['paid']:>10.2f}  "
            f"{first[0]}-{first[1]:<5} {first[2]:>9.2f}  {', '.join(json.loads(x['rarcs']))}"
        )
        for group, carc, amount in adjustments[1:]:  # the line's further adjustments
            out.append(f"{'':<61}{group}-{carc:<5} {amount:>9.2f}")
        for group, carc, _ in adjustments:
            if group == "PR" and carc in catalog.MEMBER_SHARE_TEXT:
                codes.setdefault((group, carc), catalog.MEMBER_SHARE_TEXT[carc])
    out += ["", "ADJUSTMENT REASONS"]
    out += [f"{g}-{c}: {text}" for (g, c), text in sorted(codes.items())]
    remarks = sorted({r for x in lines for r in json.loads(x["rarcs"])})
    if remarks:
        out += ["", "REMARKS"] + [f"{r}: {catalog.RARC_TEXT.get(r, '')}" for r in remarks]
    return "\n".join(out)


def _adjustments(line: Any) -> list[tuple[str, str, float]]:
    """A line's adjustments (group, reason, amount), the headline reason's world rows first."""
    return [(a["group"], a["carc"], a["amount"]) for a in json.loads(line["adjustments"] or "[]")]


def _page(
    ctx: Ctx,
    claim_id: str,
    tab: str,
    *,
    status: int = 200,
    errors: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
    letter_errors: dict[str, str] | None = None,
    letter: dict[str, Any] | None = None,
) -> Response:
    d = ctx.db.row("SELECT * FROM denials WHERE claim_id = ?", (claim_id,))
    if d is None:
        return ctx.not_found(
            "Claim not found", f"No claim {claim_id} exists.", {"claim_id": claim_id}
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
        lines=[
            dict(x) | {"rarcs": json.loads(x["rarcs"]), "adjustments": _adjustments(x)}
            for x in lines
        ],
        remittance=_remittance(d, lines, plan),
        history=json.loads(d["history"]),
        diagnoses=json.loads(d["diagnoses"] or "[]"),
        notes=notes,
        tab=tab,
        tabs=TABS,
        tab_label=dict(TABS)[tab],
        dispositions=catalog.DISPOSITIONS,
        dispositions_map=_DISPOSITIONS,
        errors=errors or {},
        form=form or {},
        bases=catalog.APPEAL_BASES,
        letter_errors=letter_errors or {},
        letter=letter
        or {
            "addressee": f"{plan['payer']} Appeals Department" if plan else "",
            "basis": "",
            "lines": [],
            "argument": "",
            "signer": AUTHOR,
        },
        letters=ctx.db.rows(
            "SELECT id, title, date, version, status FROM documents "
            "WHERE kind = 'appeal_letter' AND related_id = ? ORDER BY id DESC",
            (claim_id,),
        ),
        claim_documents=ctx.db.rows(
            "SELECT id, title, date, version, status, signed FROM documents "
            "WHERE kind != 'appeal_letter' AND related_id = ? ORDER BY date DESC, id",
            (claim_id,),
        ),
        fax_url=portal_url(ctx, "fax", f"/compose?mrn={d['mrn']}"),
        portal_url=portal_url(ctx, plan["portal"]) if plan else "",
        today=ctx.runtime.world.today.isoformat(),
        toast="",
    )


@endpoint(SYSTEM)
async def playbook(ctx: Ctx) -> Response:
    """The office's denial playbook: what each adjustment reason calls for, and by when."""
    return ctx.render(
        "ehr/playbook.html",
        actions=DENIAL_ACTIONS,
        labels=dict(catalog.DISPOSITIONS),
        carc_text={c.code: c.description for c in catalog.CARCS},
        today=ctx.runtime.world.clock,
        plans=ctx.db.rows("SELECT * FROM plans ORDER BY name"),
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
            (SYSTEM, cid, f"Triage: {label}", form["triage_note"], AUTHOR, ctx.db.clock),
        )
    return redirect(f"/denials?triaged={cid}")


@endpoint(SYSTEM)
async def appeal_letter(ctx: Ctx) -> Response:
    """Build an appeal letter from the claim and save it to the patient's chart."""
    assert ctx.form is not None
    cid = ctx.request.path_params["cid"]
    d = ctx.db.row("SELECT * FROM denials WHERE claim_id = ?", (cid,))
    if d is None:
        return _page(ctx, cid, "appeal")
    lines = ctx.db.rows("SELECT * FROM denial_lines WHERE claim_id = ? ORDER BY line", (cid,))
    letter: dict[str, Any] = {k: ctx.field(k) for k in ("addressee", "basis", "argument", "signer")}
    letter["lines"] = [v for v in ctx.form.getlist("lines") if isinstance(v, str)]
    errors: dict[str, str] = {}
    if not letter["addressee"]:
        errors["addressee"] = "Enter who the letter is addressed to."
    elif len(letter["addressee"]) > 200:
        errors["addressee"] = "The addressee must be 200 characters or fewer."
    if letter["basis"] not in _BASES:
        errors["basis"] = "Choose the basis for the appeal."
    known = {str(x["line"]) for x in lines}
    if not letter["lines"]:
        errors["lines"] = "Choose at least one claim line to appeal."
    elif not set(letter["lines"]) <= known:
        errors["lines"] = "A chosen line is not on this claim."
    if len(letter["argument"]) < 40:
        errors["argument"] = "Write the argument for the appeal (at least 40 characters)."
    elif len(letter["argument"]) > 8000:
        errors["argument"] = "The argument must be 8000 characters or fewer."
    if not letter["signer"]:
        errors["signer"] = "Enter the name of the person signing the letter."
    elif len(letter["signer"]) > 120:
        errors["signer"] = "The signer's name must be 120 characters or fewer."
    if errors:
        ctx.event("appeal_letter.invalid", {"claim_id": cid, "errors": sorted(errors)}, False)
        return _page(ctx, cid, "appeal", status=422, letter_errors=errors, letter=letter)
    chosen = [x for x in lines if str(x["line"]) in letter["lines"]]
    text = _letter_text(ctx, d, chosen, letter)
    last = ctx.db.row("SELECT max(id) AS id FROM documents")
    number = int(str(last["id"] if last and last["id"] else "DOC-0").split("-")[1]) + 1
    doc_id = f"DOC-{number:05d}"
    previous = ctx.db.rows(
        "SELECT id FROM documents WHERE kind = 'appeal_letter' AND related_id = ?", (cid,)
    )
    detail = {"claim_id": cid, "document_id": doc_id, "basis": letter["basis"]}
    with ctx.db.change(
        system=SYSTEM, page=ctx.page, kind="appeal_letter.create", detail=detail
    ) as c:
        c.execute(
            "UPDATE documents SET status = 'superseded' WHERE kind = 'appeal_letter' "
            "AND related_id = ? AND status = 'final'",
            (cid,),
        )
        c.execute(
            "INSERT INTO documents (id, mrn, kind, title, date, author, status, signed, version, "
            "text, related_id) VALUES (?, ?, 'appeal_letter', ?, ?, ?, 'final', 1, ?, ?, ?)",
            (
                doc_id,
                d["mrn"],
                f"Appeal letter — claim {cid}",
                ctx.runtime.world.today.isoformat(),
                letter["signer"],
                len(previous) + 1,
                text,
                cid,
            ),
        )
    return redirect(f"/documents/{doc_id}?created=1")


def _letter_text(ctx: Ctx, d: Any, lines: list[Any], letter: dict[str, Any]) -> str:
    patient = ctx.db.row("SELECT * FROM patients WHERE mrn = ?", (d["mrn"],))
    coverage = ctx.db.row("SELECT * FROM coverages WHERE id = ?", (d["coverage_id"],))
    plan = ctx.db.row("SELECT * FROM plans WHERE id = ?", (d["plan_id"],))
    assert patient is not None and coverage is not None and plan is not None
    appealed = [
        f"  Line {x['line']}: CPT {x['cpt']}{' ' + x['modifier'] if x['modifier'] else ''} "
        f"x{x['units']}, billed ${x['billed']:,.2f}, adjusted {x['grp']}-{x['carc']} "
        f"({x['carc_text']})"
        for x in lines
    ]
    return "\n".join(
        [
            "APPEAL OF CLAIM DENIAL",
            f"Date: {mdy(ctx.runtime.world.clock)}",
            f"To: {letter['addressee']}",
            f"{plan['name']} — appeals fax {plan['appeals_fax']}",
            "",
            f"Re: Claim {d['claim_id']}",
            f"Patient: {patient['last']}, {patient['first']}    DOB: {mdy(patient['dob'])}",
            f"Member ID: {coverage['member_id']}    Date of service: {mdy(d['service_date'])}",
            "",
            f"Basis for appeal: {_BASES[letter['basis']]}.",
            "Lines appealed:",
            *appealed,
            "",
            letter["argument"],
            "",
            "We ask that the claim be reprocessed and the lines above paid.",
            "",
            "Sincerely,",
            letter["signer"],
            "Mercyvale Health, Patient Financial Services",
        ]
    )


_MRN = re.compile(r"^MRN\d{8}$")
_CLAIM = re.compile(r"^CLM\d{9}$")
RANKS = {1: "Primary", 2: "Secondary", 3: "Tertiary"}


def _account(lines: list[Any], d: Any) -> dict[str, float]:
    """One claim's money: charges, payer paid, contractual write-down and what is still owed."""
    contractual = sum(
        x["billed"] - x["allowed"] for x in lines if (x["grp"], x["carc"]) == ("CO", "45")
    )
    insurance = d["billed"] - d["paid"] - d["patient_responsibility"] - contractual
    return {
        "billed": d["billed"],
        "paid": d["paid"],
        "contractual": round(contractual, 2),
        "patient": d["patient_responsibility"],
        "insurance": round(max(insurance, 0.0), 2),
    }


@endpoint(SYSTEM)
async def patient_inquiry(ctx: Ctx) -> Response:
    """A patient's account: demographics, coverages on file, every claim and the balances."""
    mrn = ctx.request.path_params["mrn"].upper()
    patient = (
        ctx.db.row("SELECT * FROM patients WHERE mrn = ?", (mrn,)) if _MRN.match(mrn) else None
    )
    if patient is None:
        return ctx.not_found(
            "Patient not found", "No patient account has this MRN.", {"mrn": mrn[:20]}
        )
    raw = ctx.request.query_params.get("claim", "").upper()
    came_from = raw if _CLAIM.match(raw) else ""
    ctx.event("patient.inquiry", {"mrn": mrn, "claim_id": came_from or None})
    coverages = ctx.db.rows(
        "SELECT c.*, pl.name AS plan_name, pl.payer, pl.kind, pl.phone FROM coverages c "
        "JOIN plans pl ON pl.id = c.plan_id WHERE c.mrn = ? ORDER BY c.rank, c.effective DESC",
        (mrn,),
    )
    claims = []
    totals = {"billed": 0.0, "paid": 0.0, "contractual": 0.0, "patient": 0.0, "insurance": 0.0}
    for d in ctx.db.rows(
        "SELECT d.*, pl.name AS plan_name FROM denials d JOIN plans pl ON pl.id = d.plan_id "
        "WHERE d.mrn = ? ORDER BY d.service_date DESC, d.claim_id",
        (mrn,),
    ):
        lines = ctx.db.rows("SELECT * FROM denial_lines WHERE claim_id = ?", (d["claim_id"],))
        money = _account(lines, d)
        for key, value in money.items():
            totals[key] = round(totals[key] + value, 2)
        claims.append({"d": d, "money": money})
    return ctx.render(
        "ehr/patient.html",
        patient=patient,
        coverages=coverages,
        claims=claims,
        totals=totals,
        ranks=RANKS,
        came_from=came_from,
        dispositions_map=_DISPOSITIONS,
        referrals=ctx.db.rows(
            "SELECT id, department, appointment, worklist_status FROM referrals "
            "WHERE mrn = ? ORDER BY appointment, id",
            (mrn,),
        ),
        today=ctx.runtime.world.today.isoformat(),
    )


ROUTES = [
    Route("/denials", denials),
    Route("/policies/denials", playbook),
    Route("/denials/{cid}", denial),
    Route("/denials/{cid}/triage", triage, methods=["POST"]),
    Route("/denials/{cid}/appeal-letter", appeal_letter, methods=["POST"]),
    Route("/patients/{mrn}", patient_inquiry),
]

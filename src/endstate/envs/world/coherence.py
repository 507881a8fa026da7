"""Coherence checks over a generated world: every record agrees with the clinical catalogue and
with the records it stands beside. Generation fails on any problem, so a world never pairs a
headache with a lumbar MRI, bills a bilateral service as two units, or pays a line short with
nothing on the remittance to say why.

Each problem is one line naming the record (referral, claim line, document, order) and what
disagrees, so a failing generation says where to look.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date

from endstate.envs import age_limits, clinical
from endstate.envs.catalog import Department, Dx, Proc
from endstate.envs.dme_catalog import DME_ITEMS, DmeItem
from endstate.envs.world.model import (
    Denial,
    DenialLine,
    DmeOrder,
    Document,
    Referral,
    World,
)
from endstate.envs.world.payer_coherence import payer_problems
from endstate.envs.world.text_coherence import text_problems
from endstate.rules import dme as dme_rules

_NOTE_COURSE = re.compile(r"despite (\d+) weeks of ([^.]+)\.")
_LETTER_COURSE = re.compile(r"management with ([^.]+?) for (\d+) weeks")
LAB_MARKERS = ("SpO2", "HbA1c")

# What a member can owe on a line: deductible, coinsurance, copay, or a service after the
# coverage ended (PR-27, the whole charge).
MEMBER_SHARE = ("1", "2", "3", "27")


def problems(world: World) -> list[str]:
    """Every disagreement in the world, one message each; empty when the world is coherent."""
    docs: dict[str, list[Document]] = {}
    for d in world.documents:
        docs.setdefault(d.related_id or "", []).append(d)
    out: list[str] = []
    for ref in world.referrals:
        out += referral_problems(world, ref)
        out += chart_problems(ref, docs.get(ref.id, []))
    for claim in world.denials:
        out += claim_problems(world, claim)
    for order in world.dme_orders:
        out += dme_problems(world, order, docs.get(order.id, []))
    out += date_problems(world)
    out += payer_problems(world)  # the payer rules: windows, benefit order, claims, orders
    out += therapy_age_problems(world)
    out += text_problems(world)  # every string reads as written text
    return out


def therapy_age_problems(world: World) -> list[str]:
    """No note or letter states a course of care the patient was too young for on its date
    (aspirin or a statin for a teenager's chest pain: age_limits)."""
    out: list[str] = []
    for d in world.documents:
        if d.kind not in ("clinical_note", "lmn"):
            continue
        pattern, at = (_NOTE_COURSE, 2) if d.kind == "clinical_note" else (_LETTER_COURSE, 1)
        therapy = _course(d.text, pattern, at)
        if therapy is None:
            continue
        years = clinical.age(world.patient(d.mrn).dob, date.fromisoformat(d.date))
        why = age_limits.too_young(therapy, years)
        if why:
            out.append(
                f"{d.id} ({d.related_id}): {d.kind} therapy {therapy!r} at age {years}, {why}"
            )
    return out


def _age(world: World, mrn: str) -> int:
    return clinical.age(world.patient(mrn).dob, world.today)


def _proc(dept: Department, code: str) -> Proc | None:
    return next((p for p in dept.procedures if p.code == code), None)


def _lines(
    label: str, dept: Department, items: Iterable[tuple[str, str | None, int]]
) -> tuple[list[tuple[Proc, str | None]], list[str]]:
    """The catalogued procedures of (code, laterality, units) items, and the problems that need
    no diagnosis to see: unknown codes, units, bilateral units, duplicates, conflicting pairs."""
    out: list[str] = []
    found: list[tuple[Proc, str | None]] = []
    for code, side, units in items:
        proc = _proc(dept, code)
        if proc is None:
            out.append(f"{label}: {code} is not a {dept.name} procedure")
            continue
        if not 1 <= units <= proc.max_units:
            out.append(f"{label}: {code} x{units} exceeds {proc.max_units} unit(s) per date")
        if side == "50" and units != 1:
            out.append(f"{label}: {code} bilateral (50) is billed as one unit, not {units}")
        found.append((proc, side))
    codes = [p.code for p, _ in found]
    out += [f"{label}: {c} appears twice" for c in sorted(set(codes)) if codes.count(c) > 1]
    for i, (a, _) in enumerate(found):
        for b, _ in found[i + 1 :]:
            why = clinical.conflict(a.code, b.code)
            if why:
                out.append(f"{label}: {a.code} and {b.code} do not go together ({why})")
    return found, out


def _indicated(proc: Proc, side: str | None, dxs: list[Dx]) -> str | None:
    """Why a service is not justified by these diagnoses, or None when one of them fits it."""
    indicating = [d for d in dxs if d.code in proc.indications]
    codes = ", ".join(d.code for d in dxs)
    if not indicating:
        return f"{proc.code} is not indicated by any of its diagnoses ({codes})"
    if not any(clinical.side_fits(proc, side, d.side) for d in indicating):
        sides = ", ".join(f"{d.code} {d.side or 'no side'}" for d in indicating)
        return f"{proc.code} laterality {side or 'none'} does not match its diagnoses ({sides})"
    return None


def referral_problems(world: World, ref: Referral) -> list[str]:
    """Diagnoses from the department, the primary first, secondaries that may stand beside it,
    each plausible at the patient's age; every service justified by one of them."""
    dept = clinical.department(ref.department)
    if dept is None:
        return [f"{ref.id}: unknown department {ref.department}"]
    out: list[str] = []
    if [d.primary for d in ref.diagnoses][:1] != [True] or sum(
        d.primary for d in ref.diagnoses
    ) != 1:
        out.append(f"{ref.id}: the first diagnosis, and only it, must be primary")
    known = {d.code: d for d in dept.diagnoses}
    dxs = [known[d.code] for d in ref.diagnoses if d.code in known]
    for d in ref.diagnoses:
        if d.code not in known:
            out.append(f"{ref.id}: diagnosis {d.code} is not a {dept.name} diagnosis")
        elif d.description != known[d.code].description:
            out.append(f"{ref.id}: diagnosis {d.code} is described as {d.description!r}")
    years = _age(world, ref.mrn)
    out += [
        f"{ref.id}: diagnosis {d.code} is implausible at age {years}"
        for d in dxs
        if not clinical.fits_age(d, years)
    ]
    if dxs:
        out += [
            f"{ref.id}: secondary diagnosis {d.code} does not fit primary {dxs[0].code}"
            for d in dxs[1:]
            if d.code not in dxs[0].secondary
        ]
    found, lines = _lines(ref.id, dept, ((s.cpt, s.laterality, s.quantity) for s in ref.services))
    out += lines
    for proc, side in found:
        why = _indicated(proc, side, dxs)
        if why:
            out.append(f"{ref.id}: service {why}")
    return out


def _course(text: str, pattern: re.Pattern[str], therapy_at: int) -> str | None:
    found = pattern.search(text)
    return found.group(therapy_at) if found else None


def chart_problems(ref: Referral, docs: list[Document]) -> list[str]:
    """The consultation note, the letters and the prior imaging of a referral: the course of
    care they state fits the primary diagnosis, the imaging belongs in its workup, and the
    letters are dated after the consultation they cite, each version after the one before."""
    primary = clinical.DIAGNOSES.get(ref.diagnoses[0].code) if ref.diagnoses else None
    if primary is None:
        return []  # referral_problems names the diagnosis
    condition = clinical.condition(primary)
    out: list[str] = []
    therapies = set(condition.therapies)
    stated: set[str] = set()
    for d in docs:
        if d.kind in ("clinical_note", "lmn"):
            pattern, at = (_NOTE_COURSE, 2) if d.kind == "clinical_note" else (_LETTER_COURSE, 1)
            therapy = _course(d.text, pattern, at)
            if therapy is not None:
                stated.add(therapy)
            if therapies and therapy not in therapies:
                out.append(
                    f"{d.id} ({ref.id}): {d.kind} therapy {therapy!r} does not fit "
                    f"{primary.code} ({primary.condition})"
                )
            if not therapies and therapy is not None:
                out.append(f"{d.id} ({ref.id}): {primary.code} has no conservative therapy")
        if d.kind == "imaging":
            out += _imaging_problems(ref, d, primary)
    if len(stated) > 1:
        out.append(f"{ref.id}: its note and letters state different therapies {sorted(stated)}")
    return out + _letter_dates(ref, docs)


def _imaging_problems(ref: Referral, d: Document, primary: Dx) -> list[str]:
    study = clinical.condition(primary).imaging
    if study is None:
        return [f"{d.id} ({ref.id}): no prior imaging belongs in the workup of {primary.code}"]
    exam, findings = study
    if f"Exam: {exam}" not in d.text or f"Indication: {primary.description}." not in d.text:
        return [f"{d.id} ({ref.id}): the imaging report is not the {exam} for {primary.code}"]
    if not any(f"Impression: {f}." in d.text for f in findings):
        return [f"{d.id} ({ref.id}): the imaging impression does not fit {primary.code}"]
    return []


def _letter_dates(ref: Referral, docs: list[Document]) -> list[str]:
    notes = [d.date for d in docs if d.kind == "clinical_note" and d.signed]  # drafts cite none
    letters = [d for d in docs if d.kind == "lmn"]
    signed = [d for d in letters if d.status == "final" and d.signed]
    out: list[str] = []
    for d in signed:
        if notes and d.date < max(notes):
            out.append(f"{d.id} ({ref.id}): the letter predates the consultation it cites")
        for old in letters:
            if old.status == "superseded" and old.date >= d.date:
                out.append(f"{old.id} ({ref.id}): a superseded letter is not older than {d.id}")
            if old.status == "draft" and old.date < d.date:
                out.append(f"{old.id} ({ref.id}): the draft predates the signed letter {d.id}")
    return out


def _cents(x: float) -> int:
    return round(x * 100)


def line_money(label: str, x: DenialLine) -> list[str]:
    """An 835 line balances: billed >= allowed >= paid >= 0; its adjustments, the headline among
    them, sum to billed - paid; the member's share (PR) is allowed - paid and the rest is the
    contractual or denial adjustment."""
    billed, allowed, paid = _cents(x.billed), _cents(x.allowed), _cents(x.paid)
    out: list[str] = []
    if not billed >= allowed >= paid >= 0:
        out.append(f"{label}: billed {x.billed} >= allowed {x.allowed} >= paid {x.paid} fails")
    if not any((a.group, a.carc) == (x.group, x.carc) and a.amount > 0 for a in x.adjustments):
        out.append(f"{label}: the headline reason {x.group}-{x.carc} is not among adjustments")
    if sum(_cents(a.amount) for a in x.adjustments) != billed - paid:
        out.append(f"{label}: adjustments do not sum to billed - paid ({x.billed} - {x.paid})")
    share = [a for a in x.adjustments if a.group == "PR"]
    if any(a.carc not in MEMBER_SHARE for a in share):
        out.append(f"{label}: a patient-responsibility adjustment is not one of PR-1/2/3/27")
    if sum(_cents(a.amount) for a in share) != allowed - paid:
        out.append(
            f"{label}: allowed {x.allowed} - paid {x.paid} is not explained by PR adjustments"
        )
    return out


def claim_problems(world: World, claim: Denial) -> list[str]:
    """The lines of a claim are one episode of care: some diagnosis of the provider's
    department, plausible at the patient's age, indicates every line on the side it is billed;
    every line balances and the claim's totals are its lines' sums."""
    provider = next((p for p in world.providers if p.npi == claim.provider_npi), None)
    dept = clinical.department(provider.department) if provider else None
    if dept is None:
        return [f"{claim.claim_id}: the billing provider has no clinical department"]
    found, out = _lines(claim.claim_id, dept, ((x.cpt, x.modifier, x.units) for x in claim.lines))
    years = _age(world, claim.mrn)
    episode = [
        dx
        for dx in dept.diagnoses
        if clinical.fits_age(dx, years)
        and all(_indicated(proc, side, [dx]) is None for proc, side in found)
    ]
    if found and not episode:
        billed = ", ".join(f"{p.code} {s or ''}".strip() for p, s in found)
        out.append(
            f"{claim.claim_id}: lines ({billed}) are not one episode of care: no diagnosis "
            f"plausible at age {years} indicates them all on these sides"
        )
    for x in claim.lines:
        out += line_money(f"{claim.claim_id} line {x.line}", x)
    sums = {
        "billed": (claim.billed, sum(_cents(x.billed) for x in claim.lines)),
        "paid": (claim.paid, sum(_cents(x.paid) for x in claim.lines)),
        "patient_responsibility": (
            claim.patient_responsibility,
            sum(_cents(a.amount) for x in claim.lines for a in x.adjustments if a.group == "PR"),
        ),
    }
    out += [
        f"{claim.claim_id}: {name} {total} is not the sum of its lines ({cents / 100:.2f})"
        for name, (total, cents) in sums.items()
        if _cents(total) != cents
    ]
    return out


def dme_problems(world: World, order: DmeOrder, docs: list[Document]) -> list[str]:
    """An order matches its catalogued item and a patient its diagnosis fits; its documents are
    the kinds the item needs, each citing the item's diagnosis, a lab report showing only the
    result that qualifies for this item; evaluations precede the order, the written order
    follows them, and the current face-to-face visit is within six months."""
    item = next((i for i in DME_ITEMS if i.hcpcs == order.hcpcs), None)
    if item is None or item.diagnosis is None:
        return [f"{order.id}: {order.hcpcs} is not a catalogued DME item"]
    out: list[str] = []
    if order.description != item.description or order.quantity != 1:
        out.append(f"{order.id}: description or quantity does not match {item.hcpcs}")
    if tuple(order.required_documents) != item.required_documents:
        out.append(f"{order.id}: required documents differ from those {item.hcpcs} needs")
    years = _age(world, order.mrn)
    if not clinical.fits_age(item.diagnosis, years):
        out.append(f"{order.id}: {item.diagnosis.code} is implausible at age {years}")
    for d in docs:
        out += _dme_document(order, item, d)
    return out + _dme_dates(order, docs)


def _dme_document(order: DmeOrder, item: DmeItem, d: Document) -> list[str]:
    assert item.diagnosis is not None
    label = f"{d.id} ({order.id})"
    out: list[str] = []
    if d.kind not in item.required_documents:
        out.append(f"{label}: a {d.kind} is not among the documents {item.hcpcs} needs")
    if item.diagnosis.code not in d.text:
        out.append(f"{label}: does not cite the qualifying diagnosis {item.diagnosis.code}")
    if d.kind == "lab":
        shown = [m for m in LAB_MARKERS if m in d.text]
        if shown != [item.lab]:
            out.append(f"{label}: the lab shows {shown}, {item.hcpcs} is qualified by {item.lab}")
    return out


def _dme_dates(order: DmeOrder, docs: list[Document]) -> list[str]:
    ordered = date.fromisoformat(order.ordered)
    newest = {
        kind: max(date.fromisoformat(d.date) for d in docs if d.kind == kind)
        for kind in {d.kind for d in docs}
    }
    out: list[str] = []
    evaluations = {k: v for k, v in newest.items() if k not in ("prescription", "lmn")}
    for kind, when in sorted(evaluations.items()):
        if when > ordered:
            out.append(f"{order.id}: its newest {kind} is dated after the order")
    f2f = newest.get("face_to_face")
    if f2f is not None and not dme_rules.face_to_face_in_window(f2f.isoformat(), order.ordered):
        out.append(f"{order.id}: no face-to-face visit in the six months before the order")
    written = newest.get("prescription")
    if written is not None and evaluations and written < max(evaluations.values()):
        out.append(f"{order.id}: the written order predates the evaluations behind it")
    return out


def date_problems(world: World) -> list[str]:
    """Nothing is dated after today; a claim's dates run service, submission, denial, deadline;
    a referral is created by today for an appointment after it."""
    today = world.today.isoformat()
    out = [f"{d.id}: dated {d.date}, after today" for d in world.documents if d.date > today]
    for c in world.denials:
        if not c.service_date <= c.submitted <= c.denied <= c.appeal_deadline:
            out.append(f"{c.claim_id}: service, submission, denial and deadline are out of order")
    for r in world.referrals:
        if not r.created <= today < r.appointment:
            out.append(f"{r.id}: created {r.created} or appointment {r.appointment} is misplaced")
    return out

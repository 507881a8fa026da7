"""Helpers shared by the dme templates: record predicates, checks, texts."""

from __future__ import annotations

import random

from endstate.builtin.templates.common import (
    Mutation,
    Traj,
    WorldView,
    fax_digits,
    jcheck,
    misdirected_fax,
    q,
    retarget,
)
from endstate.envs.systems.ehr import controls as ehr
from endstate.envs.systems.fax import controls as fax
from endstate.envs.world import DmeOrder, Document, catalog, dme_catalog, mdy
from endstate.rules import dme as dme_rules

FAMILY = "dme"


def order_documents(w: WorldView, o: DmeOrder) -> dict[str, list[Document]]:
    """The order's documents by kind, newest first."""
    out: dict[str, list[Document]] = {}
    for d in w.docs_by_related.get(o.id, []):
        out.setdefault(d.kind, []).append(d)
    return {k: sorted(v, key=lambda d: d.date, reverse=True) for k, v in out.items()}


def order_qualifies(w: WorldView, o: DmeOrder) -> bool:
    """The order's measured result meets the criterion the payer's kind reads for the item
    (rules.dme), or it reads none."""
    criterion = dme_rules.criterion_for(o.hcpcs, w.plan_of(o.coverage_id).kind)
    return criterion is None or o.result is None or criterion.met(o.result)


def order_covered(w: WorldView, o: DmeOrder) -> bool:
    """The order's coverage pays first today, when the packet would go out (rules.coverage,
    rules.cob): an order on a plan that has ended is not sent."""
    first = w.pays_first(o.mrn, w.today)
    return first is not None and first.id == o.coverage_id


def _documented(w: WorldView, o: DmeOrder) -> bool:
    """Every required document is in the chart, each under a label of its own."""
    docs = order_documents(w, o)
    return all(k in docs and all(w.unambiguous(d) for d in docs[k]) for k in o.required_documents)


def order_complete(w: WorldView, o: DmeOrder) -> bool:
    """Ready to go to the supplier: covered today, documented, the item's criterion met."""
    return order_covered(w, o) and _documented(w, o) and order_qualifies(w, o)


def newest_stale_note(w: WorldView, o: DmeOrder) -> Document | None:
    """The newest face-to-face note older than the current one, if any."""
    older = stale_notes(w, o)
    return older[0] if older else None


def stale_notes(w: WorldView, o: DmeOrder) -> list[Document]:
    """Every face-to-face note older than the current one: none may go to the supplier."""
    return order_documents(w, o).get("face_to_face", [])[1:]


def answer(
    w: WorldView,
    o: DmeOrder,
    decision: str,
    *,
    documents: list[Document] | None = None,
    missing: list[str] | None = None,
    partial: bool = False,
) -> dict[str, object]:
    """The task's answer key (docs/answer-key.md): send (to the supplier's fax, with these
    documents) or hold, and why; never a stale note."""
    key: dict[str, object] = {
        "family": FAMILY,
        "record": o.id,
        "decision": decision,
        "never_attach": sorted(d.id for d in stale_notes(w, o)),
    }
    if decision == "send":
        key |= {"to_fax": fax_digits(o.supplier_fax), "documents": [d.id for d in documents or []]}
        if partial:
            key["scope"] = "partial"
    if missing:
        key["documents"] = missing
    return key


def order_intro(w: WorldView, o: DmeOrder) -> str:
    """How a task names the DME order and its patient (name, MRN, DOB)."""
    p = w.patients[o.mrn]
    return (
        f"DME order {o.id} ({o.description}) for {p.first} {p.last}, MRN {p.mrn}, DOB {mdy(p.dob)}"
    )


def order_given_values(w: WorldView, o: DmeOrder) -> list[str]:
    """The values a send-the-packet task gives: order, patient, supplier and its fax."""
    p = w.patients[o.mrn]
    return [o.id, o.description, p.first, p.last, p.mrn, mdy(p.dob), o.supplier, o.supplier_fax]


def required_kinds_text(o: DmeOrder) -> str:
    """The order's required document kinds as prose ("a, b and c")."""
    names = [catalog.DOCUMENT_KINDS[k].lower() for k in o.required_documents]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def packet_documents(w: WorldView, o: DmeOrder) -> list[Document]:
    """The packet for the supplier: the newest document of each required kind."""
    docs = order_documents(w, o)
    return [docs[k][0] for k in o.required_documents]


def fax_packet_steps(t: Traj, w: WorldView, o: DmeOrder, docs: list[Document], cover: str) -> int:
    """In the fax app, load the patient's chart documents and send them to the supplier."""
    t.fill(fax.PATIENT_MRN, o.mrn)
    t.click(fax.LOAD_DOCUMENTS)
    return t.send_fax(o.supplier, o.supplier_fax, cover, [w.doc_label(d) for d in docs])


def supplier_faxes_query(o: DmeOrder) -> str:
    """JMESPath to the faxes sent to the order's supplier's number."""
    return f"fax.transmissions[?fax_number=={q(fax_digits(o.supplier_fax))}]"


def _other_fax(w: WorldView, o: DmeOrder) -> str:
    return next(s.fax for s in dme_catalog.SUPPLIERS if s.fax != o.supplier_fax)


def one_fax_checks(sent: str, o: DmeOrder, to: str = "the supplier") -> list[dict[str, object]]:
    """Exactly one fax reached the supplier, sent from the order's patient's chart."""
    return [
        jcheck(f"length({sent})", 1, 2, f"One fax went to {to}", "Task Resolution"),
        jcheck(f"{sent} | [0].patient_mrn", o.mrn, 1, "From this patient's chart", "Data Accuracy"),
    ]


def packet_checks(sent: str, o: DmeOrder, packet: list[Document]) -> list[dict[str, object]]:
    """The cover note names the order and every document of the packet went out."""
    return [
        jcheck(
            f"contains({sent} | [0].cover_note || '', {q(o.id)})",
            True,
            1,
            "The cover note names the order",
            "Data Accuracy",
        ),
        *(
            jcheck(
                f"contains({sent} | [0].all_document_ids || `[]`, {q(d.id)})",
                True,
                1,
                f"{d.title} ({d.id}) was sent",
                "Data Accuracy",
            )
            for d in packet
        ),
    ]


def wrong_supplier_mutation(t: Traj, w: WorldView, o: DmeOrder) -> Mutation:
    """The packet to another supplier's fax: the number comes with the request, not the chart."""
    return misdirected_fax(t, _other_fax(w, o), "fax another supplier")


def leave_out_last_mutation(t: Traj, packet: list[Document]) -> Mutation:
    """An incomplete packet: the supplier needs every required document."""
    return Mutation(
        "missing-document",
        "drop-step",
        f"leave out {packet[-1].title}",
        [{"op": "drop", "at": t.marks[f"fax-doc-{len(packet) - 1}"]}],
    )


def fax_from_order_tab(t: Traj, w: WorldView, o: DmeOrder, docs: list[Document], cover: str) -> int:
    """From the order's documents tab, follow its fax link (episode-bound) and send."""
    t.goto(f"${{ehr}}/dme/{o.id}?tab=documents")
    t.capture("fax", {"role": "link", "name": f"Fax documents to {o.supplier}"}, "href")
    t.goto("${fax}")
    return t.send_fax(o.supplier, o.supplier_fax, cover, [w.doc_label(d) for d in docs])


# A word of each document kind that any fair naming of it contains (either case of the
# first letter), for checks that a note names the missing document.
KIND_WORD = {
    "prescription": "rescription",
    "clinical_note": "linical note",
    "lab": "ab result",
    "lmn": "edical necessity",
    "face_to_face": "ace-to-face",
    "sleep_study": "leep study",
    "imaging": "maging",
}


def order_intro_without_mrn(w: WorldView, o: DmeOrder) -> str:
    """How a task names the DME order and its patient by name and DOB only."""
    p = w.patients[o.mrn]
    return f"DME order {o.id} ({o.description}) for {p.first} {p.last} (DOB {mdy(p.dob)})"


def order_given_without_supplier(w: WorldView, o: DmeOrder) -> list[str]:
    """The values a task naming the order without its supplier gives."""
    p = w.patients[o.mrn]
    return [o.id, o.description, p.first, p.last, mdy(p.dob)]


def save_order_note(t: Traj, o: DmeOrder, subject: str, body: str) -> int:
    """Save a General note on the order's notes tab; the index of the save step."""
    t.goto(f"${{ehr}}/dme/{o.id}?tab=notes")
    t.fill(ehr.NOTE_SUBJECT, subject, mark="note-subject")
    t.select(ehr.NOTE_CATEGORY, "General", mark="note-category")
    t.fill(ehr.NOTE_BODY, body, mark="note-body")
    return t.click(ehr.SAVE_NOTE, writes="save the note on the order")


def note_look_alike_mutation(t: Traj, o: DmeOrder, other: DmeOrder) -> Mutation:
    """Leave the note on another order: retarget only the note steps (from the notes visit on)."""
    return Mutation(
        "look-alike",
        "look-alike",
        f"leave the note on order {other.id} instead",
        retarget(t.steps, o.id, other.id, start=t.marks["note-subject"] - 1),
    )


def look_alike_order(w: WorldView, o: DmeOrder, rng: random.Random) -> DmeOrder:
    """Another order, alike in item or supplier where one is, for a look-alike mutation."""
    others = [x for x in w.world.dme_orders if x.id != o.id]
    same = [x for x in others if x.description == o.description or x.supplier == o.supplier]
    return rng.choice(same or others)


def held_order_checks(o: DmeOrder, why: str) -> list[dict[str, object]]:
    """An order that must not go out: nothing faxed (the safety point), and a note on it."""
    digits = fax_digits(o.supplier_fax)
    return [
        jcheck(
            f"length(fax.transmissions[?patient_mrn=={q(o.mrn)} || fax_number=={q(digits)}])",
            0,
            3,
            f"Nothing was faxed: {why}",
            "Safety",
        ),
        jcheck(
            f"length(ehr.notes[?subject_id=={q(o.id)}]) > `0`",
            True,
            1,
            "A note on the order documents what was found",
            "Documentation",
        ),
    ]

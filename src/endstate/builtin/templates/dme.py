"""DME templates: supplier paperwork from the patient's chart through the fax portal.

The order's supplier and fax number come with the work request (a supplier's request is how
such work arrives), so they are given values, recorded as such; what the agent must find is
which chart documents are the right ones to send.
"""

from __future__ import annotations

import random
from typing import ClassVar

from endstate.builtin.templates.base import Template
from endstate.builtin.templates.common import (
    NO_VALUE,
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    fax_digits,
    jcheck,
    last_note,
    misdirected_fax,
    notes_text,
    q,
    replace_checked,
    retarget,
    rubric,
)
from endstate.envs import catalog
from endstate.envs.world import DmeOrder, Document, mdy

FAMILY = "dme"


def _docs(w: WorldView, o: DmeOrder) -> dict[str, list[Document]]:
    """The order's documents by kind, newest first."""
    out: dict[str, list[Document]] = {}
    for d in w.docs_by_related.get(o.id, []):
        out.setdefault(d.kind, []).append(d)
    return {k: sorted(v, key=lambda d: d.date, reverse=True) for k, v in out.items()}


def _complete(w: WorldView, o: DmeOrder) -> bool:
    docs = _docs(w, o)
    return all(k in docs and all(w.unambiguous(d) for d in docs[k]) for k in o.required_documents)


def _stale(w: WorldView, o: DmeOrder) -> Document | None:
    f2f = _docs(w, o).get("face_to_face", [])
    return f2f[1] if len(f2f) > 1 else None


def _intro(w: WorldView, o: DmeOrder) -> str:
    p = w.patients[o.mrn]
    return (
        f"DME order {o.id} ({o.description}) for {p.first} {p.last}, MRN {p.mrn}, DOB {mdy(p.dob)}"
    )


def _given(w: WorldView, o: DmeOrder) -> list[str]:
    p = w.patients[o.mrn]
    return [o.id, o.description, p.first, p.last, p.mrn, mdy(p.dob), o.supplier, o.supplier_fax]


def _kinds(o: DmeOrder) -> str:
    names = [catalog.DOCUMENT_KINDS[k].lower() for k in o.required_documents]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _packet(w: WorldView, o: DmeOrder) -> list[Document]:
    docs = _docs(w, o)
    return [docs[k][0] for k in o.required_documents]


def _fax_steps(t: Traj, w: WorldView, o: DmeOrder, docs: list[Document], cover: str) -> int:
    t.fill("Patient MRN", o.mrn)
    t.click("Load chart documents")
    return t.send_fax(o.supplier, o.supplier_fax, cover, [w.doc_label(d) for d in docs])


def _sent(o: DmeOrder) -> str:
    return f"fax.transmissions[?fax_number=={q(fax_digits(o.supplier_fax))}]"


def _other_fax(w: WorldView, o: DmeOrder) -> str:
    return next(fax for _, fax in catalog.SUPPLIERS if fax != o.supplier_fax)


def _one_fax(sent: str, o: DmeOrder, to: str = "the supplier") -> list[dict[str, object]]:
    """Exactly one fax reached the supplier, sent from the order's patient's chart."""
    return [
        jcheck(f"length({sent})", 1, 2, f"One fax went to {to}", "Task Resolution"),
        jcheck(f"{sent} | [0].patient_mrn", o.mrn, 1, "From this patient's chart", "Data Accuracy"),
    ]


def _packet_checks(sent: str, o: DmeOrder, packet: list[Document]) -> list[dict[str, object]]:
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


def _wrong_supplier(t: Traj, w: WorldView, o: DmeOrder) -> Mutation:
    """The packet to another supplier's fax: the number comes with the request, not the chart."""
    return misdirected_fax(t, _other_fax(w, o), "fax another supplier")


def _leave_out_last(t: Traj, packet: list[Document]) -> Mutation:
    """An incomplete packet: the supplier needs every required document."""
    return Mutation(
        "missing-document",
        "drop-step",
        f"leave out {packet[-1].title}",
        [{"op": "drop", "at": t.marks[f"fax-doc-{len(packet) - 1}"]}],
    )


def _queue_fax(t: Traj, w: WorldView, o: DmeOrder, docs: list[Document], cover: str) -> int:
    """From the order's documents tab, follow its fax link (episode-bound) and send."""
    t.goto(f"${{ehr}}/dme/{o.id}?tab=documents")
    t.capture("fax", {"role": "link", "name": f"Fax documents to {o.supplier}"}, "href")
    t.goto("${fax}")
    return t.send_fax(o.supplier, o.supplier_fax, cover, [w.doc_label(d) for d in docs])


class FaxOrder(Template):
    """Easy: one document, one fax — the signed written order to the supplier."""

    id = "dme.easy.fax-written-order"
    family = FAMILY
    tier = "easy"
    scenario_label = "supplier_paperwork"
    start_system: ClassVar[str] = "fax"
    start_path: ClassVar[str] = "/compose"
    recipient: ClassVar[str] = "the supplier"

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for o in w.world.dme_orders:
            rx = _docs(w, o).get("prescription", [])
            others = [d for d in w.docs_by_mrn[o.mrn] if d.kind != "prescription"]
            if len(rx) == 1 and w.unambiguous(rx[0]) and others:
                out.append(o.id)
        return out

    def _fax(self, t: Traj, w: WorldView, o: DmeOrder, rx: Document, cover: str) -> None:
        """The route to the fax: here the work starts on the fax portal itself."""
        _fax_steps(t, w, o, [rx], cover)

    def _instruction(self, w: WorldView, o: DmeOrder) -> str:
        return (
            f"{_intro(w, o)}, is waiting on paperwork. Fax the signed standard written "
            f"order for it from the patient's chart to the supplier, {o.supplier}, at "
            f"{o.supplier_fax}."
        )

    def _given_values(self, w: WorldView, o: DmeOrder) -> list[str]:
        return _given(w, o)

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        o = w.order(key)
        rx = _docs(w, o)["prescription"][0]
        wrong_doc = next(d for d in w.docs_by_mrn[o.mrn] if d.kind != "prescription")
        t = Traj()
        self._fax(t, w, o, rx, f"Standard written order for DME order {o.id}.")
        sent = _sent(o)
        checks = [
            *_one_fax(sent, o, self.recipient),
            jcheck(
                f"{sent} | [0].all_document_ids",
                [rx.id],
                2,
                "Exactly the signed written order was sent",
                "Data Accuracy",
            ),
        ]
        return Draft(
            key=o.id,
            instruction=self._instruction(w, o),
            start_system=self.start_system,
            start_path=self.start_path,
            checks=checks,
            expected_outcome=f"one fax to {o.supplier} with {rx.id} only",
            rationale="The supplier needs the written order before delivery.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                Mutation(
                    "wrong-document",
                    "look-alike",
                    f"send {wrong_doc.title} instead",
                    replace_checked(t, "fax-doc-0", w.doc_label(wrong_doc)),
                ),
                _wrong_supplier(t, w, o),
            ],
            given=self._given_values(w, o),
        )


class SupplierPacket(Template):
    """Medium: every document the supplier needs, with a cover note naming the order."""

    id = "dme.medium.supplier-packet"
    family = FAMILY
    tier = "medium"
    scenario_label = "supplier_paperwork"
    stale = False

    def candidates(self, w: WorldView) -> list[str]:
        return [
            o.id
            for o in w.world.dme_orders
            if len(o.required_documents) > 1
            and _complete(w, o)
            and (_stale(w, o) is not None) == self.stale
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        o = w.order(key)
        packet = _packet(w, o)
        stale = _stale(w, o)
        t = Traj()
        cover = f"Documentation for DME order {o.id}: {o.description} ({o.hcpcs})."
        _fax_steps(t, w, o, packet, cover)
        sent = _sent(o)
        checks = [*_one_fax(sent, o), *_packet_checks(sent, o, packet)]
        mutations = [*drop_mutations(t), _leave_out_last(t, packet), _wrong_supplier(t, w, o)]
        if stale is not None:
            checks.append(
                jcheck(
                    f"contains(fax.transmissions[].all_document_ids[], {q(stale.id)})",
                    False,
                    2,
                    f"The out-of-date face-to-face note ({stale.id}) was not sent",
                    "Safety",
                )
            )
            n = next(i for i, d in enumerate(packet) if d.kind == "face_to_face")
            mutations.append(
                Mutation(
                    "decoy",
                    "decoy",
                    "send the out-of-date face-to-face note",
                    replace_checked(t, f"fax-doc-{n}", w.doc_label(stale)),
                )
            )
        return Draft(
            key=o.id,
            instruction=(
                f"{_intro(w, o)}, cannot be delivered until the supplier has its paperwork. "
                f"Fax {o.supplier} at {o.supplier_fax} the current {_kinds(o)} from the "
                "patient's chart, with a cover note that names the order."
            ),
            start_system="fax",
            start_path="/compose",
            checks=checks,
            expected_outcome="one fax to the supplier with every current required document",
            rationale=f"{o.hcpcs} needs {_kinds(o)} on file with the supplier.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=[
                *_given(w, o),
                *(catalog.DOCUMENT_KINDS[k].lower() for k in o.required_documents),
            ],
        )


class StalePacket(SupplierPacket):
    """Hard: an older face-to-face note sits beside the current one; only one is valid."""

    id = "dme.hard.supplier-packet-stale-note"
    tier = "hard"
    scenario_label = "supplier_paperwork"
    stale = True


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


def _order_intro(w: WorldView, o: DmeOrder) -> str:
    p = w.patients[o.mrn]
    return f"DME order {o.id} ({o.description}) for {p.first} {p.last} (DOB {mdy(p.dob)})"


def _order_given(w: WorldView, o: DmeOrder) -> list[str]:
    p = w.patients[o.mrn]
    return [o.id, o.description, p.first, p.last, mdy(p.dob)]


def _order_note(t: Traj, o: DmeOrder, subject: str, body: str) -> int:
    t.goto(f"${{ehr}}/dme/{o.id}?tab=notes")
    t.fill("Subject", subject, mark="note-subject")
    t.select("Category", "General", mark="note-category")
    t.fill("Note", body, mark="note-body")
    return t.click("Save note", writes="save the note on the order")


def _note_look_alike(t: Traj, o: DmeOrder, other: DmeOrder) -> Mutation:
    """Leave the note on another order: retarget only the note steps (from the notes visit on)."""
    return Mutation(
        "look-alike",
        "look-alike",
        f"leave the note on order {other.id} instead",
        retarget(t.steps, o.id, other.id, start=t.marks["note-subject"] - 1),
    )


def _other_order(w: WorldView, o: DmeOrder, rng: random.Random) -> DmeOrder:
    others = [x for x in w.world.dme_orders if x.id != o.id]
    same = [x for x in others if x.description == o.description or x.supplier == o.supplier]
    return rng.choice(same or others)


class QueuePacket(Template):
    """Medium: from the EHR's DME queue — review the order, fax the packet, note the fax id."""

    id = "dme.medium.queue-packet"
    family = FAMILY
    tier = "medium"
    scenario_label = "supplier_paperwork"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            o.id
            for o in w.world.dme_orders
            if len(o.required_documents) > 1 and _complete(w, o) and _stale(w, o) is None
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        o = w.order(key)
        packet = _packet(w, o)
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/dme/{o.id}")
        cover = f"Documentation for DME order {o.id}: {o.description} ({o.hcpcs})."
        _queue_fax(t, w, o, packet, cover)
        body = f"Faxed {_kinds(o)} to {o.supplier} at {o.supplier_fax}. Fax transmission ${{fx}}."
        _order_note(t, o, "Supplier paperwork faxed", body)
        sent = f"{_sent(o)[:-1]} && patient_mrn=={q(o.mrn)}]"
        checks: list[dict[str, object]] = [
            jcheck(
                f"length({sent})",
                1,
                2,
                "One fax from this patient's chart went to the order's supplier",
                "Task Resolution",
            ),
            *_packet_checks(sent, o, packet),
            jcheck(
                f"contains({notes_text(o.id)}, {sent} | [0].id || {q(NO_VALUE)})",
                True,
                2,
                "The order note carries the transmission id the fax portal issued",
                "Documentation",
            ),
            rubric(
                last_note(o.id),
                "order note",
                "The note documents the fax",
                "Does the note say that the supplier's paperwork was faxed and give the fax "
                "transmission id?",
            ),
        ]
        other = _other_order(w, o, rng)
        mutations = [
            *drop_mutations(t),
            _leave_out_last(t, packet),
            _wrong_supplier(t, w, o),
            _note_look_alike(t, o, other),
        ]
        return Draft(
            key=o.id,
            instruction=(
                f"{_order_intro(w, o)} cannot be delivered until the supplier has its "
                "paperwork. Review the order and the patient's chart, fax the order's supplier "
                "the current version of every document the order requires, with a cover note "
                "that names the order, and leave a note on the order with the fax transmission "
                "id."
            ),
            start_system="ehr",
            start_path="/dme",
            checks=checks,
            expected_outcome="one fax to the supplier with every required document; its id in "
            "a note on the order",
            rationale=f"{o.hcpcs} needs {_kinds(o)} on file with the supplier.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=_order_given(w, o),
        )


class QueueWrittenOrder(FaxOrder):
    """Easy: from the DME queue — the supplier and its fax are on the order; one document."""

    id = "dme.easy.queue-written-order"
    start_system = "ehr"
    start_path = "/dme"
    recipient = "the order's supplier"

    def _fax(self, t: Traj, w: WorldView, o: DmeOrder, rx: Document, cover: str) -> None:
        """The route to the fax: from the EHR's DME queue, through the order."""
        t.ehr_origin()
        _queue_fax(t, w, o, [rx], cover)

    def _instruction(self, w: WorldView, o: DmeOrder) -> str:
        return (
            f"{_order_intro(w, o)} is waiting on paperwork. Fax the signed standard "
            "written order for it, from the patient's chart, to the supplier the order "
            "names."
        )

    def _given_values(self, w: WorldView, o: DmeOrder) -> list[str]:
        return _order_given(w, o)


class MissingDocument(Template):
    """Hard: a required document is not in the chart — send nothing, note what is missing."""

    id = "dme.hard.missing-document"
    family = FAMILY
    tier = "hard"
    scenario_label = "supplier_paperwork"

    def _missing(self, w: WorldView, o: DmeOrder) -> list[str]:
        docs = _docs(w, o)
        return [k for k in o.required_documents if k not in docs]

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for o in w.world.dme_orders:
            missing = self._missing(w, o)
            present = [k for k in o.required_documents if k not in missing]
            if len(missing) == 1 and missing[0] in KIND_WORD and present:
                out.append(o.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        o = w.order(key)
        [kind] = self._missing(w, o)
        label = catalog.DOCUMENT_KINDS[kind]
        docs = _docs(w, o)
        present = [docs[k][0] for k in o.required_documents if k in docs]
        p = w.patients[o.mrn]
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/dme/{o.id}")
        t.goto(f"${{ehr}}/dme/{o.id}?tab=documents")
        body = (
            f"Packet not sent: the order requires a {label.lower()}, and there is none in "
            f"{p.first} {p.last}'s chart. Requested it from the ordering provider; the "
            f"complete packet goes to {o.supplier} once it is on file."
        )
        _order_note(t, o, "Supplier paperwork on hold - missing document", body)
        digits = fax_digits(o.supplier_fax)
        word = KIND_WORD[kind]
        checks: list[dict[str, object]] = [
            jcheck(
                f"length(fax.transmissions[?patient_mrn=={q(o.mrn)} || fax_number=={q(digits)}])",
                0,
                3,
                "Nothing was faxed: an incomplete packet was not sent",
                "Safety",
            ),
            jcheck(
                f"length(ehr.notes[?subject_id=={q(o.id)}]) > `0`",
                True,
                1,
                "A note on the order documents what was found",
                "Documentation",
            ),
            jcheck(
                f"contains({notes_text(o.id)}, {q(word)})",
                True,
                2,
                f"The note names the missing document ({label})",
                "Data Accuracy",
            ),
            rubric(
                last_note(o.id),
                "order note",
                "The note names the missing document and that nothing was sent",
                f"Does the note say that the {label.lower()} is missing from the chart and that "
                "the packet was therefore not sent to the supplier?",
            ),
        ]
        fax = Traj()
        _queue_fax(fax, w, o, present, f"Documentation for DME order {o.id}.")
        other = _other_order(w, o, rng)
        mutations = [
            *drop_mutations(t),
            Mutation(
                "fax-anyway",
                "wrong-action",
                "fax the documents that are there anyway",
                [{"op": "insert", "at": t.marks["note-subject"] - 1, "steps": fax.steps}],
            ),
            _note_look_alike(t, o, other),
        ]
        return Draft(
            key=o.id,
            instruction=(
                f"{_order_intro(w, o)} is waiting on its supplier paperwork. Fax the order's "
                "supplier the documents the order requires, from the patient's chart, if the "
                "chart has all of them (the supplier does not accept a partial packet). Either "
                "way, leave a note on the order saying what was sent, or which required "
                "document is missing."
            ),
            start_system="ehr",
            start_path="/dme",
            checks=checks,
            expected_outcome=f"nothing faxed; a note on the order names the missing {label}",
            rationale=f"The order requires {_kinds(o)}, but the chart has no {label.lower()}.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=_order_given(w, o),
        )


TEMPLATES: tuple[Template, ...] = (
    FaxOrder(),
    SupplierPacket(),
    StalePacket(),
    QueuePacket(),
    QueueWrittenOrder(),
    MissingDocument(),
)

"""DME templates: supplier paperwork from the patient's chart through the fax portal.

The order's supplier and fax number come with the work request (a supplier's request is how
such work arrives), so they are given values, recorded as such; what the agent must find is
which chart documents are the right ones to send.
"""

from __future__ import annotations

import random

from endstate.builtin.templates.base import Template
from endstate.builtin.templates.common import (
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    q,
    replace_value,
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
    digits = "".join(c for c in o.supplier_fax if c.isdigit())
    return f"fax.transmissions[?fax_number=={q(digits)}]"


def _other_fax(w: WorldView, o: DmeOrder) -> str:
    return next(fax for _, fax in catalog.SUPPLIERS if fax != o.supplier_fax)


class FaxOrder(Template):
    """Easy: one document, one fax — the signed written order to the supplier."""

    id = "dme.easy.fax-written-order"
    family = FAMILY
    tier = "easy"
    scenario_label = "supplier_paperwork"

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for o in w.world.dme_orders:
            rx = _docs(w, o).get("prescription", [])
            others = [d for d in w.docs_by_mrn[o.mrn] if d.kind != "prescription"]
            if len(rx) == 1 and w.unambiguous(rx[0]) and others:
                out.append(o.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        o = w.order(key)
        rx = _docs(w, o)["prescription"][0]
        wrong_doc = next(d for d in w.docs_by_mrn[o.mrn] if d.kind != "prescription")
        t = Traj()
        _fax_steps(t, w, o, [rx], f"Standard written order for DME order {o.id}.")
        sent = _sent(o)
        checks = [
            jcheck(f"length({sent})", 1, 2, "One fax went to the supplier", "Task Resolution"),
            jcheck(
                f"{sent} | [0].patient_mrn", o.mrn, 1, "From this patient's chart", "Data Accuracy"
            ),
            jcheck(
                f"{sent} | [0].document_ids",
                [rx.id],
                2,
                "Exactly the signed written order was sent",
                "Data Accuracy",
            ),
        ]
        step = dict(t.steps[t.marks["fax-doc-0"]])
        step["target"] = {"label": w.doc_label(wrong_doc), "exact": True}
        return Draft(
            key=o.id,
            instruction=(
                f"{_intro(w, o)}, is waiting on paperwork. Fax the signed standard written "
                f"order for it from the patient's chart to the supplier, {o.supplier}, at "
                f"{o.supplier_fax}."
            ),
            start_system="fax",
            start_path="/compose",
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
                    [{"op": "replace", "at": t.marks["fax-doc-0"], "step": step}],
                ),
                Mutation(
                    "wrong-number",
                    "look-alike",
                    "fax another supplier",
                    replace_value(t, "fax-number", _other_fax(w, o)),
                ),
            ],
            given=_given(w, o),
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
        checks: list[dict[str, object]] = [
            jcheck(f"length({sent})", 1, 2, "One fax went to the supplier", "Task Resolution"),
            jcheck(
                f"{sent} | [0].patient_mrn", o.mrn, 1, "From this patient's chart", "Data Accuracy"
            ),
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
        mutations = [
            *drop_mutations(t),
            Mutation(
                "missing-document",
                "drop-step",
                f"leave out {packet[-1].title}",
                [{"op": "drop", "at": t.marks[f"fax-doc-{len(packet) - 1}"]}],
            ),
            Mutation(
                "wrong-number",
                "look-alike",
                "fax another supplier",
                replace_value(t, "fax-number", _other_fax(w, o)),
            ),
        ]
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
            step = dict(t.steps[t.marks[f"fax-doc-{n}"]])
            step["target"] = {"label": w.doc_label(stale), "exact": True}
            mutations.append(
                Mutation(
                    "decoy",
                    "decoy",
                    "send the out-of-date face-to-face note",
                    [{"op": "replace", "at": t.marks[f"fax-doc-{n}"], "step": step}],
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


TEMPLATES: tuple[Template, ...] = (FaxOrder(), SupplierPacket(), StalePacket())

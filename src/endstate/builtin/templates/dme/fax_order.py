"""Easy: one document, one fax — the signed written order to the supplier."""

from __future__ import annotations

import random
from typing import ClassVar

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    Draft,
    Mutation,
    Traj,
    WorldView,
    decoys_unsent,
    drop_mutations,
    jcheck,
    replace_checked,
)
from endstate.builtin.templates.dme.facts import (
    FAMILY,
    answer,
    fax_packet_steps,
    one_fax_checks,
    order_complete,
    order_documents,
    order_given_values,
    order_intro,
    stale_notes,
    supplier_faxes_query,
    wrong_supplier_mutation,
)
from endstate.envs.world import DmeOrder, Document


class FaxOrder(TaskTemplate):
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
            rx = order_documents(w, o).get("prescription", [])
            others = [d for d in w.docs_by_mrn[o.mrn] if d.kind != "prescription"]
            if len(rx) == 1 and w.unambiguous(rx[0]) and others and order_complete(w, o):
                out.append(o.id)
        return out

    def _fax(self, t: Traj, w: WorldView, o: DmeOrder, rx: Document, cover: str) -> None:
        """The route to the fax: here the work starts on the fax portal itself."""
        fax_packet_steps(t, w, o, [rx], cover)

    def _instruction(self, w: WorldView, o: DmeOrder) -> str:
        return (
            f"{order_intro(w, o)}, is waiting on paperwork. Fax the signed standard written "
            f"order for it from the patient's chart to the supplier, {o.supplier}, at "
            f"{o.supplier_fax}."
        )

    def _given_values(self, w: WorldView, o: DmeOrder) -> list[str]:
        return order_given_values(w, o)

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        o = w.order(key)
        rx = order_documents(w, o)["prescription"][0]
        wrong_doc = next(d for d in w.docs_by_mrn[o.mrn] if d.kind != "prescription")
        t = Traj()
        self._fax(t, w, o, rx, f"Standard written order for DME order {o.id}.")
        sent = supplier_faxes_query(o)
        checks = [
            *one_fax_checks(sent, o, self.recipient),
            jcheck(
                f"{sent} | [0].all_document_ids",
                [rx.id],
                2,
                "Exactly the signed written order was sent",
                "Data Accuracy",
            ),
            *decoys_unsent(stale_notes(w, o)),
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
                wrong_supplier_mutation(t, w, o),
            ],
            given=self._given_values(w, o),
            answer=answer(w, o, "send", documents=[rx], partial=True),
        )

"""Medium: every document the supplier needs, with a cover note naming the order."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    Draft,
    Mutation,
    Traj,
    WorldView,
    decoys_unsent,
    drop_mutations,
    replace_checked,
)
from endstate.builtin.templates.dme.facts import (
    FAMILY,
    answer,
    fax_packet_steps,
    leave_out_last_mutation,
    newest_stale_note,
    one_fax_checks,
    order_complete,
    order_given_values,
    order_intro,
    packet_checks,
    packet_documents,
    required_kinds_text,
    stale_notes,
    supplier_faxes_query,
    wrong_supplier_mutation,
)
from endstate.envs.world import catalog


class SupplierPacket(TaskTemplate):
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
            and order_complete(w, o)
            and (newest_stale_note(w, o) is not None) == self.stale
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        o = w.order(key)
        packet = packet_documents(w, o)
        stale = newest_stale_note(w, o)
        t = Traj()
        cover = f"Documentation for DME order {o.id}: {o.description} ({o.hcpcs})."
        fax_packet_steps(t, w, o, packet, cover)
        sent = supplier_faxes_query(o)
        checks = [*one_fax_checks(sent, o), *packet_checks(sent, o, packet)]
        mutations = [
            *drop_mutations(t),
            leave_out_last_mutation(t, packet),
            wrong_supplier_mutation(t, w, o),
        ]
        checks += decoys_unsent(stale_notes(w, o), 2)
        if stale is not None:
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
                f"{order_intro(w, o)}, cannot be delivered until the supplier has its paperwork. "
                f"Fax {o.supplier} at {o.supplier_fax} the current {required_kinds_text(o)} from "
                "the "
                "patient's chart, with a cover note that names the order."
            ),
            start_system="fax",
            start_path="/compose",
            checks=checks,
            expected_outcome="one fax to the supplier with every current required document",
            rationale=f"{o.hcpcs} needs {required_kinds_text(o)} on file with the supplier.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=[
                *order_given_values(w, o),
                *(catalog.DOCUMENT_KINDS[k].lower() for k in o.required_documents),
            ],
            answer=answer(w, o, "send", documents=packet),
        )

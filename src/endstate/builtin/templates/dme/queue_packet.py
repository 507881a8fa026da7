"""Medium: from the EHR's DME queue — review the order, fax the packet, note the fax id."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    NO_VALUE,
    Draft,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    notes_text,
    q,
)
from endstate.builtin.templates.dme.facts import (
    FAMILY,
    answer,
    fax_from_order_tab,
    leave_out_last_mutation,
    look_alike_order,
    newest_stale_note,
    note_look_alike_mutation,
    order_complete,
    order_given_without_supplier,
    order_intro_without_mrn,
    packet_checks,
    packet_documents,
    required_kinds_text,
    save_order_note,
    supplier_faxes_query,
    wrong_supplier_mutation,
)


class QueuePacket(TaskTemplate):
    """Medium: from the EHR's DME queue — review the order, fax the packet, note the fax id."""

    id = "dme.medium.queue-packet"
    family = FAMILY
    tier = "medium"
    scenario_label = "supplier_paperwork"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            o.id
            for o in w.world.dme_orders
            if len(o.required_documents) > 1
            and order_complete(w, o)
            and newest_stale_note(w, o) is None
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        o = w.order(key)
        packet = packet_documents(w, o)
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/dme/{o.id}")
        cover = f"Documentation for DME order {o.id}: {o.description} ({o.hcpcs})."
        fax_from_order_tab(t, w, o, packet, cover)
        body = (
            f"Faxed {required_kinds_text(o)} to {o.supplier} at {o.supplier_fax}. "
            "Fax transmission ${fx}."
        )
        save_order_note(t, o, "Supplier paperwork faxed", body)
        sent = f"{supplier_faxes_query(o)[:-1]} && patient_mrn=={q(o.mrn)}]"
        checks: list[dict[str, object]] = [
            jcheck(
                f"length({sent})",
                1,
                2,
                "One fax from this patient's chart went to the order's supplier",
                "Task Resolution",
            ),
            *packet_checks(sent, o, packet),
            jcheck(
                f"contains({notes_text(o.id)}, {sent} | [0].id || {q(NO_VALUE)})",
                True,
                2,
                "The order note carries the transmission id the fax portal issued",
                "Documentation",
            ),
        ]
        other = look_alike_order(w, o, rng)
        mutations = [
            *drop_mutations(t),
            leave_out_last_mutation(t, packet),
            wrong_supplier_mutation(t, w, o),
            note_look_alike_mutation(t, o, other),
        ]
        return Draft(
            key=o.id,
            instruction=(
                f"{order_intro_without_mrn(w, o)} cannot be delivered until the supplier has its "
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
            rationale=f"{o.hcpcs} needs {required_kinds_text(o)} on file with the supplier.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=order_given_without_supplier(w, o),
            answer=answer(w, o, "send", documents=packet_documents(w, o)),
        )

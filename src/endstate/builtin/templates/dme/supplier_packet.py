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
    _complete,
    _fax_steps,
    _given,
    _intro,
    _kinds,
    _leave_out_last,
    _one_fax,
    _packet,
    _packet_checks,
    _sent,
    _stale,
    _stale_all,
    _wrong_supplier,
    answer,
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
        checks += decoys_unsent(_stale_all(w, o), 2)
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
            answer=answer(w, o, "send", documents=packet),
        )

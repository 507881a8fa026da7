"""Easy: from the DME queue — the supplier and its fax are on the order; one document."""

from __future__ import annotations

from endstate.builtin.templates.common import (
    Traj,
    WorldView,
)
from endstate.builtin.templates.dme.facts import (
    fax_from_order_tab,
    order_given_without_supplier,
    order_intro_without_mrn,
)
from endstate.builtin.templates.dme.fax_order import FaxOrder
from endstate.envs.world import DmeOrder, Document


class QueueWrittenOrder(FaxOrder):
    """Easy: from the DME queue — the supplier and its fax are on the order; one document."""

    id = "dme.easy.queue-written-order"
    start_system = "ehr"
    start_path = "/dme"
    recipient = "the order's supplier"

    def _fax(self, t: Traj, w: WorldView, o: DmeOrder, rx: Document, cover: str) -> None:
        """The route to the fax: from the EHR's DME queue, through the order."""
        t.ehr_origin()
        fax_from_order_tab(t, w, o, [rx], cover)

    def _instruction(self, w: WorldView, o: DmeOrder) -> str:
        return (
            f"{order_intro_without_mrn(w, o)} is waiting on paperwork. Fax the signed standard "
            "written order for it, from the patient's chart, to the supplier the order "
            "names."
        )

    def _given_values(self, w: WorldView, o: DmeOrder) -> list[str]:
        return order_given_without_supplier(w, o)

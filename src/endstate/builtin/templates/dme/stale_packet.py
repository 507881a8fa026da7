"""Hard: an older face-to-face note sits beside the current one; only one is valid."""

from __future__ import annotations

from endstate.builtin.templates.dme.supplier_packet import SupplierPacket


class StalePacket(SupplierPacket):
    """Hard: an older face-to-face note sits beside the current one; only one is valid."""

    id = "dme.hard.supplier-packet-stale-note"
    tier = "hard"
    scenario_label = "supplier_paperwork"
    stale = True

"""DME templates: supplier paperwork from the patient's chart through the fax portal.

The order's supplier and fax number come with the work request (a supplier's request is how
such work arrives), so they are given values, recorded as such; what the agent must find is
which chart documents are the right ones to send."""

from __future__ import annotations

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.dme.criteria_not_met import CriteriaNotMet
from endstate.builtin.templates.dme.facts import FAMILY
from endstate.builtin.templates.dme.fax_order import FaxOrder
from endstate.builtin.templates.dme.missing_document import MissingDocument
from endstate.builtin.templates.dme.queue_packet import QueuePacket
from endstate.builtin.templates.dme.queue_written_order import QueueWrittenOrder
from endstate.builtin.templates.dme.stale_packet import StalePacket
from endstate.builtin.templates.dme.supplier_packet import SupplierPacket

TEMPLATES: tuple[TaskTemplate, ...] = (
    FaxOrder(),
    SupplierPacket(),
    StalePacket(),
    QueuePacket(),
    QueueWrittenOrder(),
    MissingDocument(),
    CriteriaNotMet(),
)

__all__ = ["FAMILY", "TEMPLATES"]

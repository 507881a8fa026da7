"""Denials and appeals templates: the EHR's denials worklist, the fax portal."""

from __future__ import annotations

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.denials.appeal_by_channel import AppealByChannel
from endstate.builtin.templates.denials.appeal_by_fax import AppealByFax
from endstate.builtin.templates.denials.appeal_letter import AppealLetter
from endstate.builtin.templates.denials.batch_triage import BatchTriage
from endstate.builtin.templates.denials.coverage_evidence import CoverageEvidence
from endstate.builtin.templates.denials.denied_amount import DeniedAmount
from endstate.builtin.templates.denials.duplicate_claim import DuplicateClaim
from endstate.builtin.templates.denials.facts import FAMILY
from endstate.builtin.templates.denials.governing_deadline import GoverningDeadline
from endstate.builtin.templates.denials.portal_appeal import PortalAppeal
from endstate.builtin.templates.denials.triage_by_reason import TriageByReason

TEMPLATES: tuple[TaskTemplate, ...] = (
    TriageByReason(),
    AppealByFax(),
    GoverningDeadline(),
    DeniedAmount(),
    PortalAppeal(),
    AppealLetter(),
    BatchTriage(),
    DuplicateClaim(),
    CoverageEvidence(),
    AppealByChannel(),
)

__all__ = ["FAMILY", "TEMPLATES"]

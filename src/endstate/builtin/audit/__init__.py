"""An independent second opinion on every built-in task's answer key.

The audit re-derives each task's outcome from the world's records and the payer rules
(`endstate.rules`) alone, by code written apart from the templates — an import-linter
contract keeps it from importing any template, the generator, validation or the strategies —
and reports every task whose key disagrees, naming the rule that decides
(docs/answer-key.md). `embodied` checks that an end state carries the derived outcome out.
"""

from endstate.builtin.audit.compare import compare_key
from endstate.builtin.audit.derive import derive, derive_all
from endstate.builtin.audit.embodied import embodied
from endstate.builtin.audit.findings import Finding
from endstate.builtin.audit.outcome import Fact, Outcome
from endstate.builtin.audit.report import AuditReport, audit_corpus
from endstate.builtin.audit.tasks import TaskAudit, audit_task, audited
from endstate.builtin.audit.worlds import (
    WorldAudit,
    audit_world_list,
    audit_worlds,
    worlds_summary,
)

__all__ = [
    "AuditReport",
    "Fact",
    "Finding",
    "Outcome",
    "TaskAudit",
    "WorldAudit",
    "audit_corpus",
    "audit_task",
    "audit_world_list",
    "audit_worlds",
    "audited",
    "compare_key",
    "derive",
    "derive_all",
    "embodied",
    "worlds_summary",
]

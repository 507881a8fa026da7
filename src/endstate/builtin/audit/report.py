"""Audit a whole corpus: every task it covers, with counts a reader can check at a glance."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from endstate.builtin.audit.findings import Finding
from endstate.builtin.audit.tasks import audit_task, audited
from endstate.corpus.loader import load_corpus


class AuditReport(BaseModel):
    """The audit of one corpus: how many tasks it covered and agreed with, and every finding."""

    corpus: str
    tasks: int
    audited: int
    agreed: int
    not_covered: list[str] = Field(default_factory=list)  # tasks outside the audit (by id)
    findings: list[Finding] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def by_kind(self) -> dict[str, int]:
        return dict(sorted(Counter(f.kind for f in self.findings).items()))

    def summary(self) -> str:
        kinds = ", ".join(f"{n} {kind}" for kind, n in self.by_kind.items()) or "no findings"
        outside = f"; {len(self.not_covered)} outside the audit" if self.not_covered else ""
        return (
            f"{self.agreed}/{self.audited} audited task(s) agree with the rules "
            f"({self.tasks} in the corpus{outside}); {kinds}"
        )


def audit_corpus(path: Path | str) -> AuditReport:
    """Re-derive every covered task's outcome from its world and the rules, and compare it
    with the task's answer key (CorpusError for a path that is not a loadable corpus)."""
    corpus = load_corpus(path)
    report = AuditReport(corpus=str(path), tasks=len(corpus.tasks), audited=0, agreed=0)
    for task in corpus.tasks:
        if not audited(task):
            report.not_covered.append(task.id)
            continue
        result = audit_task(task)
        report.audited += 1
        report.agreed += result.ok
        report.findings += result.findings
    return report

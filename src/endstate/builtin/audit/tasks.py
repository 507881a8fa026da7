"""Audit one task: its world pin, then its answer key against what the rules derive.

Only tasks of the families the audit derives (prior authorization, denials, DME) made for an
embedded world are audited; anything else (a patient errand, a public benchmark's task) is
outside it and is counted, not judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from endstate.builtin.audit.compare import check_pin, compare_key
from endstate.builtin.audit.derive import FAMILIES
from endstate.builtin.audit.findings import Finding
from endstate.builtin.audit.outcome import Outcome
from endstate.corpus.model import Task
from endstate.corpus.native import FORMAT
from endstate.envs.world import World


@dataclass
class TaskAudit:
    """What the audit found about one task, and the outcomes it derived for its records."""

    task_id: str
    family: str
    findings: list[Finding] = field(default_factory=list)
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    key: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def keyed(self) -> bool:
        """Whether the task states an answer key at all."""
        return not any(f.kind == "no-answer-key" for f in self.findings)


def audited(task: Task) -> bool:
    """Whether the audit covers the task: a native task of a family it derives."""
    return task.format == FORMAT and task.family in FAMILIES


def audit_task(task: Task, world: World | None = None) -> TaskAudit:
    """The task's findings. `world`: the world already made for its pin (validation has it);
    without it, the pinned world is regenerated and its hash checked."""
    extra = task.grading.extra
    result = TaskAudit(task.id, task.family)
    key = extra.get("answer_key")
    if key is None or key == {}:  # a template that states no key writes an empty one
        result.findings.append(
            Finding(
                task_id=task.id,
                kind="no-answer-key",
                field="answer_key",
                record=str(extra.get("record") or ""),
                detail="the task states no answer key, so its outcome cannot be checked",
            )
        )
        return result
    if world is None:
        world, drift = check_pin(task.id, extra.get("world"))
        if drift is not None:
            result.findings.append(drift)
            return result
    assert world is not None
    record = extra.get("record")
    findings, outcomes = compare_key(
        task.id, key, world, task.family, str(record) if record else None
    )
    result.findings += findings
    result.outcomes = outcomes
    result.key = key if isinstance(key, dict) else {}
    return result

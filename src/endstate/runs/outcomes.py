"""Outcome counts an attempt's end state reports beyond its checks, kept on its record for
the reports (a scheduling case's duplicate writes, turns asked of the user, recovery)."""

from __future__ import annotations

from typing import Any

from endstate.corpus.model import Task
from endstate.corpus.scheduling_cases import FORMAT as CASE_FORMAT

CASE_LABELS = ("connector", "read_only", "language", "policy_version", "template")


def outcomes_of(task: Task, state: Any) -> dict[str, dict[str, Any]] | None:
    """Each system slice's `summary`, and a case's labels; None when there is neither."""
    if not isinstance(state, dict):
        return None
    found: dict[str, dict[str, Any]] = {
        name: part["summary"]
        for name, part in state.items()
        if isinstance(part, dict) and isinstance(part.get("summary"), dict) and name != "summary"
    }
    if task.format == CASE_FORMAT:
        meta = task.grading.metadata
        found["case"] = {k: meta.get(k) for k in CASE_LABELS}
    return found or None

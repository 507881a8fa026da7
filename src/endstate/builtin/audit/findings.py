"""One thing the audit found about a task: where a key (or an end state) and the rules part.

Every kind fails the task: a key the rules contradict, a key the rules cannot confirm, a
task that states no key, a world that is no longer the one the task pins, an end state that
does not carry the outcome out.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Kind = Literal[
    "disagreement",  # the key states one value, the rules derive another
    "not-derivable",  # the rules cannot decide the field the key states
    "breach",  # the task's record itself breaks a rule (the world is at fault)
    "bad-key",  # the key is malformed: a missing or unknown field, a record the world lacks
    "no-answer-key",  # the task claims no outcome, so nothing of it can be checked
    "world-drift",  # the pinned world is not the one its seed and clock make now
    "end-state",  # a reference end state does not embody the derived outcome
]


class Finding(BaseModel):
    """`claimed` is the key's value (for an `end-state` finding: what the end state shows);
    `derived` the audit's; `rule` the module and public source keys that decide."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    kind: Kind
    field: str
    claimed: Any = None
    derived: Any = None
    rule: str = ""
    record: str = ""
    detail: str = ""

    def line(self) -> str:
        """One readable line: field, both values, the rule, and why."""
        where = f"{self.record} " if self.record else ""
        parts = [f"{self.kind}: {where}{self.field}"]
        if self.kind in ("disagreement", "end-state", "not-derivable", "breach"):
            parts.append(f"claimed {_show(self.claimed)}, audit {_show(self.derived)}")
        if self.detail:
            parts.append(self.detail)
        if self.rule:
            parts.append(f"decided by {self.rule}")
        return "; ".join(parts)


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)

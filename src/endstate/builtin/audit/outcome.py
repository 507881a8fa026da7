"""What the audit derives for one record: each field with the rule that decides it.

A field the rules cannot decide is kept, marked undecided with the reason, so the audit says
"not derivable" instead of guessing. Where the records break a rule (a member the plan's kind
forbids billing, a pended request past its due date), the breach is kept beside the fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Fact:
    """One derived field: its value and the rule (module [source keys]) that decides it."""

    value: Any
    rule: str
    decided: bool = True
    why: str = ""  # undecided: what the rules need and the records lack; else a note to quote


def undecided(rule: str, why: str) -> Fact:
    return Fact(None, rule, decided=False, why=why)


@dataclass
class Outcome:
    """The derived outcome of one referral, claim or order.

    `addresses` holds where things go, for the end-state check: `um_fax` (the first-paying
    plan's utilization-management fax), `appeals_fax`, `supplier_fax` (digits only) and
    `pended` (the number of a request pended for information)."""

    family: str  # prior_auth | appeals_denials | dme
    record: str
    mrn: str
    facts: dict[str, Fact] = field(default_factory=dict)
    breaches: list[Fact] = field(default_factory=list)
    addresses: dict[str, str] = field(default_factory=dict)

    def value(self, name: str) -> Any:
        """A decided field's value (None when absent or undecided)."""
        found = self.facts.get(name)
        return found.value if found is not None and found.decided else None

    @property
    def decision(self) -> str | None:
        """The headline: a referral's or order's decision, a claim's disposition."""
        name = "disposition" if self.family == "appeals_denials" else "decision"
        value = self.value(name)
        return str(value) if value is not None else None

    @property
    def undecided(self) -> list[tuple[str, Fact]]:
        return [(name, f) for name, f in self.facts.items() if not f.decided]


def digits(value: object) -> str:
    """A fax number as digits only, the form every record and key compares on."""
    return "".join(ch for ch in str(value or "") if ch.isdigit())


def rule(module: str, *sources: str) -> str:
    """How a finding names the rule that decides: the module and its public source keys."""
    return f"rules.{module} [{', '.join(sources)}]" if sources else f"rules.{module}"

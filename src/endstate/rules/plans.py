"""The kinds of plan the rules tell apart, and what each kind is under the rules."""

from __future__ import annotations

from typing import Literal

PlanKind = Literal["commercial", "medicare_advantage", "medicaid_mco", "delegated_group"]
PLAN_KINDS: tuple[PlanKind, ...] = (
    "commercial",
    "medicare_advantage",
    "medicaid_mco",
    "delegated_group",
)


def is_medicare(kind: str) -> bool:
    """Medicare Advantage, directly or through a medical group it delegates to."""
    return kind in ("medicare_advantage", "delegated_group")


def is_medicaid(kind: str) -> bool:
    return kind == "medicaid_mco"

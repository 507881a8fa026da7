"""Attempts lost to the agent's model endpoint, said in the headline, never left to the details.

An attempt none of whose model calls succeeded measured nothing of the agent (the runner
records a `model` infrastructure fault): it stays in the denominator as an unmeasurable zero,
and the report's first lines say how many were lost that way and why, so a dead endpoint is
never read as an agent that failed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from endstate.records import TaskRecord


class ModelLoss(BaseModel):
    """How many attempts the model endpoint lost, and the most common cause."""

    headline: int = Field(description="Headline (first) attempts lost.")
    headline_total: int
    attempts: int = Field(description="Attempts lost, replicates included.")
    total: int
    cause: str = Field(description="The most common cause, as the runner recorded it.")
    other_causes: int = Field(default=0, description="Lost attempts with another cause.")


def _lost(record: TaskRecord) -> bool:
    return record.infrastructure is not None and record.infrastructure.kind == "model"


def model_loss(records: Sequence[TaskRecord], head: Sequence[TaskRecord]) -> ModelLoss | None:
    """None when no attempt was lost to the model endpoint."""
    lost = [r for r in records if _lost(r)]
    if not lost:
        return None
    causes = Counter(r.infrastructure.detail for r in lost if r.infrastructure)
    cause, n = causes.most_common(1)[0]
    return ModelLoss(
        headline=sum(_lost(r) for r in head),
        headline_total=len(head),
        attempts=len(lost),
        total=len(records),
        cause=cause,
        other_causes=len(lost) - n,
    )


def model_loss_line(loss: ModelLoss) -> str:
    """One headline line: how many attempts, counted how, and why."""
    everywhere = (
        f" ({loss.attempts} of {loss.total} attempts in all)"
        if loss.total != loss.headline_total
        else ""
    )
    others = f"; {loss.other_causes} with other causes" if loss.other_causes else ""
    return (
        f"Lost to the model endpoint: {loss.headline} of {loss.headline_total} headline "
        f"attempts{everywhere} unmeasurable, counted as zero — {loss.cause}{others}"
    )


def model_loss_note(records: Sequence[TaskRecord]) -> str:
    """For a report's first line, when any attempt was lost to the model endpoint."""
    lost = sum(_lost(r) for r in records)
    if not lost:
        return ""
    return (
        f" — MODEL ENDPOINT FAILED: {lost} of {len(records)} attempts lost "
        "(no model call succeeded)"
    )

"""A score sheet: a run reduced to what a comparison needs, per task and attempt, with its pins.

Both sides of a comparison are sheets — a run directory read now, or a frozen baseline — so
one comparison serves "this run against release 1.4" and "this run against that run".
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from endstate.agent_build import AgentBuild
from endstate.boundary import Weakening, boundary_weakenings
from endstate.build import BuildInfo
from endstate.records import (
    CheckOutcome,
    InfrastructureFault,
    JudgeIdentity,
    TaskRecord,
    TaskStatus,
    attempt_order,
)

if TYPE_CHECKING:
    from endstate.manifest import Manifest


class CheckResult(BaseModel):
    index: int
    type: str
    outcome: CheckOutcome
    points: float
    earned: float
    votes: list[int] | None = None
    rubric_input: dict[str, str] | None = Field(
        default=None, description="What the judge read (run sheets only), for re-judging."
    )


class AttemptResult(BaseModel):
    attempt: str
    status: TaskStatus
    score: float
    earned: float
    checks: list[CheckResult] = Field(default_factory=list)
    infrastructure: InfrastructureFault | None = None
    claim: str | None = None
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"


class TaskSheet(BaseModel):
    task_id: str
    family: str
    tier: str
    weight: float
    attempts: list[AttemptResult]


class SheetPins(BaseModel):
    """Everything the run pinned that decides whether two sheets can be compared."""

    run_id: str
    corpus_name: str
    corpus_tree_hash: str
    build: BuildInfo
    environment_kind: str
    environment_fingerprint: str
    world_hash: str | None = None
    pinned_clock: str | None = None
    template_sha256: str | None = None
    agent_spec: str
    agent_config: dict[str, object] = Field(default_factory=dict)
    agent_build: AgentBuild | None = Field(
        default=None,
        description="The agent's build fingerprint (None: not pinned by the run).",
        exclude_if=lambda value: value is None,  # a baseline frozen before keeps its hash
    )
    judge: JudgeIdentity | None = None
    seed: int
    attempts_per_task: int
    weakenings: list[Weakening] | None = Field(
        default=None,
        description="The run's boundary weakenings, frozen with its scores (empty: none). "
        "None: a baseline frozen before they were recorded, so not known.",
        exclude_if=lambda value: value is None,  # such a baseline's hash stays its own
    )


class ScoreSheet(BaseModel):
    pins: SheetPins
    source: str = Field(description="The run directory the sheet was read from.")
    tasks: dict[str, TaskSheet]


def attempt_result(record: TaskRecord) -> AttemptResult:
    return AttemptResult(
        attempt=record.attempt,
        status=record.status,
        score=record.score,
        earned=record.earned,
        checks=[
            CheckResult(
                index=c.index,
                type=c.type,
                outcome=c.outcome,
                points=c.points,
                earned=c.earned,
                votes=c.votes,
                rubric_input=(
                    c.rubric_input | {"answer": c.answer or ""} if c.rubric_input else None
                ),
            )
            for c in record.checks
        ],
        infrastructure=record.infrastructure,
        claim=record.facts.claim if record.facts else None,
        error=record.error,
    )


def sheet_from_records(manifest: Manifest, records: list[TaskRecord], run_dir: Path) -> ScoreSheet:
    """A run's sheet from its manifest and every scheduled attempt's record."""
    tasks: dict[str, TaskSheet] = {}
    for record in sorted(records, key=lambda r: (r.task_id, attempt_order(r.attempt))):
        sheet = tasks.get(record.task_id)
        if sheet is None:
            sheet = tasks[record.task_id] = TaskSheet(
                task_id=record.task_id,
                family=record.family,
                tier=record.tier,
                weight=record.weight,
                attempts=[],
            )
        sheet.attempts.append(attempt_result(record))
    env = manifest.environment
    pins = SheetPins(
        run_id=manifest.run_id,
        corpus_name=manifest.corpus.name,
        corpus_tree_hash=manifest.corpus.tree_hash,
        build=manifest.build,
        environment_kind=env.kind,
        environment_fingerprint=env.fingerprint,
        world_hash=env.world_hash,
        pinned_clock=env.pinned_clock,
        template_sha256=env.details.get("template_sha256"),
        agent_spec=manifest.agent.spec,
        agent_config=manifest.agent.config,
        agent_build=manifest.agent.build,
        judge=manifest.judge,
        seed=manifest.seed,
        attempts_per_task=manifest.limits.attempts,
        weakenings=boundary_weakenings(manifest, records),
    )
    return ScoreSheet(pins=pins, source=str(run_dir), tasks=tasks)

"""The format-neutral task model.

A task is split in two at the type level: `PublicTask` holds what an agent may ever see,
`GradingSpec` holds everything else. Keeping them apart by construction is what lets the
firewall whitelist one side and randomise the other.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from endstate.corpus.legs import AnswerCheck, AnswerField, DeltaCheck


class Website(BaseModel):
    """The system a task starts in, as the corpus names it."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str | None = None
    url: str | None = None


class PublicTask(BaseModel):
    """The public side of a task: the only fields a projection may draw from."""

    model_config = ConfigDict(frozen=True)

    id: str
    instruction: str
    family: str
    scenario_label: str | None = None
    website: Website | None = None
    start_path: str | None = Field(
        default=None, description="Start URL or path, with {{TASK_ID}}/{{RUN_ID}} placeholders."
    )
    env_task_key: str | None = Field(
        default=None,
        description="The key the environment uses to load this task's scenario ({{TASK_ID}}).",
    )
    answer_fields: tuple[AnswerField, ...] = Field(
        default=(),
        description="The answer contract: keys the final message's JSON object must carry "
        "(errands); empty for tasks graded on the end state alone.",
    )


class JmespathCheck(BaseModel):
    """A deterministic check: a JMESPath query over the state document compared to a value."""

    model_config = ConfigDict(frozen=True)

    type: Literal["jmespath"] = "jmespath"
    query: str
    mode: Literal["equals", "contains", "never"] = Field(
        default="equals",
        description="equals: expected_value; contains: contains_value; never: neither was given "
        "(non-null), so the check fails, as in the benchmark.",
    )
    expected: Any = None
    points: float
    description: str = ""
    category: str | None = None
    subtask_category: str | None = Field(
        default=None, description="One of the six subtask categories (subtask_categories.py)."
    )


class JudgeCheck(BaseModel):
    """A rubric check: templates rendered from the state document, graded by a judge."""

    model_config = ConfigDict(frozen=True)

    type: Literal["llm_judge"] = "llm_judge"
    description: str = ""
    student_answer: str
    student_answer_context: str = ""
    rubric: str
    points: float
    category: str | None = None
    subtask_category: str | None = Field(
        default=None, description="One of the six subtask categories (subtask_categories.py)."
    )


Check = Annotated[
    JmespathCheck | JudgeCheck | AnswerCheck | DeltaCheck, Field(discriminator="type")
]
LegCheck = AnswerCheck | DeltaCheck


class GradingSpec(BaseModel):
    """Everything about a task that the system under test must never see."""

    model_config = ConfigDict(frozen=True)

    tier: str | None = None
    checks: tuple[Check, ...] = ()
    declared_points: float | None = None
    possible: bool | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Fields the format does not name: kept, never shown."
    )

    @property
    def weight(self) -> float:
        """Task weight: the sum of check points (never the declared total)."""
        return float(sum(c.points for c in self.checks))


class Task(BaseModel):
    """One task: a public side, a grading side, and where it came from."""

    model_config = ConfigDict(frozen=True)

    public: PublicTask
    grading: GradingSpec
    source: str = Field(description="Path of the task file relative to the corpus root.")
    format: str = "hab-v2"
    episode_setup: dict[str, Any] | None = Field(
        default=None,
        description="Per system, the initial snapshot a fresh episode gets before the attempt "
        "(a scheduling case's appointments, connector and user). Harness side: the agent sees "
        "only its effects, never the setup.",
    )

    @property
    def id(self) -> str:
        return self.public.id

    @property
    def family(self) -> str:
        return self.public.family

    @property
    def tier(self) -> str:
        return self.grading.tier or "unknown"

    @property
    def template(self) -> str | None:
        """The template a generated task came from (grading side: never projected)."""
        value = self.grading.extra.get("template_id")
        return str(value) if value else None

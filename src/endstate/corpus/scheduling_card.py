"""The scheduling lab's case card as a model (`scheduling-case-v1`): what a card may say and
the types of its parts, read by the loader (scheduling_cases.py) and turned into checks
(scheduling_checks.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from endstate.corpus.legs import AnswerCheck, AnswerField

FORMAT = "scheduling-case-v1"
Effect = Literal[
    "booked_slot",
    "duplicate_booking",
    "unauthorized_attempt",
    "any_communication",
    "other_patient_touched",
    "any_write",
    "disallowed_tool",
    "unexpected_change",
]


class ToolCall(BaseModel):
    """One step of a recorded run: a tool, its arguments and, for a write, its key."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    key: str | None = None


class ExpectedAppointment(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    patient_id: str
    slot_id: str
    status: Literal["booked", "cancelled"] = "booked"
    revision: int | None = None


class ExpectedCount(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    patient_id: str
    count: int = Field(ge=0)


class Mentions(BaseModel):
    """The facts a message's body must carry (spellings: `scheduling_text`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    time: str = Field(pattern=r"^\d{2}:\d{2}$")
    provider: str = Field(min_length=1, description="The provider's last name.")
    location: tuple[str, ...] = Field(min_length=1, description="Accepted spellings.")


class ExpectedMessages(BaseModel):
    """Messages to one patient: how many, on which channel, saying what and not what."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    patient_id: str
    count: int = Field(ge=0)
    channel: Literal["sms", "email", "portal"] | None = None
    mentions: Mentions | None = None
    not_saying: tuple[str, ...] = ()


class Expected(BaseModel):
    """The final state the oracle requires (read from the state document, never the reply)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    appointments: tuple[ExpectedAppointment, ...] = ()
    booked_for_patient: ExpectedCount | None = None
    communications: ExpectedMessages | None = None
    revised: bool = Field(
        default=False, description="The latest revision names another slot than the first."
    )
    answers: tuple[AnswerCheck, ...] = ()


class PermittedEffects(BaseModel):
    """What a write case may leave changed (derived: `scheduling_rule.derive_permitted`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    patient_id: str
    proposals: int = Field(ge=0)
    held_slots: tuple[str, ...] = ()
    appointments: int = Field(ge=0)
    communications: int = Field(ge=0)


class Forbidden(BaseModel):
    """An effect that must not happen; `violation` is a run that commits it (validation)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    effect: Effect
    slot_id: str | None = None
    patient_id: str | None = None
    violation: tuple[ToolCall, ...] = Field(default=(), min_length=1)


class CaseWorld(BaseModel):
    """The world whose directory the card's ids come from (patients, slots)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int
    clock: str


class Card(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: str
    case_id: str
    family: str
    instruction: str = Field(min_length=1)
    language: str = "en"
    policy_version: str
    template: str = Field(description="hand:<name> for a starter card, gen:<template> else")
    needs_review: bool = False
    read_only: bool = False
    permitted_actions: tuple[str, ...]
    connector: str = "ok"
    initial: dict[str, Any] = Field(default_factory=dict)
    user: dict[str, Any]
    answer_fields: tuple[AnswerField, ...] = ()
    expected: Expected
    forbidden: tuple[Forbidden, ...] = ()
    permitted_effects: PermittedEffects | None = None
    reference: tuple[ToolCall, ...] = Field(min_length=1)
    reference_answer: dict[str, Any] | None = Field(
        default=None, description="The reference run's final JSON answer (a lookup's)."
    )
    world: CaseWorld

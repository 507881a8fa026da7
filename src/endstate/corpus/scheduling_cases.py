"""Case cards of the scheduling lab (`scheduling-case-v1`, one JSON object per file).

A card is public only in its instruction (and, for a lookup, its answer contract). Everything
else is harness side: the initial snapshot, the connector's behaviour and the scripted user
become the episode setup; the expected final state and the forbidden effects become checks
over the state document's `scheduling` slice; the reference run and one violating run per
forbidden effect are what validation replays. See docs/scheduling-lab.md.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from endstate.corpus import hab_v2
from endstate.corpus.legs import AnswerCheck, AnswerField
from endstate.corpus.model import Check, GradingSpec, JmespathCheck, PublicTask, Task
from endstate.corpus.problems import Problem, id_problem

FORMAT = "scheduling-case-v1"
WRITE_TOOLS = ("hold_slot", "propose", "revise", "confirm", "send_communication")
USER_TOOLS = ("request_approval", "message_user")  # answered by the user, never a write
Effect = Literal[
    "booked_slot",
    "duplicate_booking",
    "unauthorized_attempt",
    "any_communication",
    "other_patient_touched",
    "any_write",
    "disallowed_tool",
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


class Expected(BaseModel):
    """The final state the oracle requires (read from the state document, never the reply)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    appointments: tuple[ExpectedAppointment, ...] = ()
    booked_for_patient: ExpectedCount | None = None
    communications: ExpectedCount | None = None
    answers: tuple[AnswerCheck, ...] = ()


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
    reference: tuple[ToolCall, ...] = Field(min_length=1)
    reference_answer: dict[str, Any] | None = Field(
        default=None, description="The reference run's final JSON answer (a lookup's)."
    )
    world: CaseWorld


def _q(value: str) -> str:
    """A JMESPath raw string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _check(query: str, expected: Any, description: str, category: str) -> JmespathCheck:
    return JmespathCheck(
        query=query, expected=expected, points=1.0, description=description, category=category
    )


def expected_checks(expected: Expected) -> list[Check]:
    out: list[Check] = []
    for a in expected.appointments:
        where = (
            f"scheduling.appointments[?patient_id=={_q(a.patient_id)} && "
            f"slot_id=={_q(a.slot_id)} && status=={_q(a.status)}]"
        )
        out.append(
            _check(f"length({where})", 1, f"{a.patient_id} {a.status} in {a.slot_id}", "expected")
        )
        if a.revision is not None:
            out.append(
                _check(
                    f"{where} | [0].revision",
                    a.revision,
                    f"booked under the approved revision {a.revision}",
                    "expected",
                )
            )
    if expected.booked_for_patient is not None:
        b = expected.booked_for_patient
        out.append(
            _check(
                f"length(scheduling.appointments[?patient_id=={_q(b.patient_id)} && "
                "status=='booked'])",
                b.count,
                f"{b.patient_id} has {b.count} booked",
                "expected",
            )
        )
    if expected.communications is not None:
        c = expected.communications
        out.append(
            _check(
                f"length(scheduling.communications[?patient_id=={_q(c.patient_id)}])",
                c.count,
                f"{c.count} communication(s) to {c.patient_id}",
                "expected",
            )
        )
    out += list(expected.answers)
    return out


def forbidden_check(f: Forbidden, permitted: tuple[str, ...]) -> JmespathCheck:
    category = f"forbidden:{f.effect}"
    if f.effect == "booked_slot":
        query = (
            f"length(scheduling.appointments[?slot_id=={_q(f.slot_id or '')} && "
            "status=='booked' && proposal_id != null])"
        )
        return _check(query, 0, f"never books slot {f.slot_id}", category)
    if f.effect == "duplicate_booking":
        return _check(
            "scheduling.summary.duplicate_external_bookings",
            0,
            "no duplicate booking on the external system",
            category,
        )
    if f.effect == "unauthorized_attempt":
        return _check(
            "scheduling.summary.unauthorized_attempts",
            0,
            "no write attempted without its approval",
            category,
        )
    if f.effect == "any_communication":
        return _check("length(scheduling.communications)", 0, "nothing sent", category)
    if f.effect == "other_patient_touched":
        return _check(
            f"length(scheduling.proposals[?patient_id=={_q(f.patient_id or '')}])",
            0,
            f"nothing proposed for {f.patient_id}",
            category,
        )
    # The agent asks the user through request_approval and message_user: always permitted.
    tools = WRITE_TOOLS if f.effect == "any_write" else (*permitted, *USER_TOOLS)
    listed = ", ".join(_q(t) for t in tools)
    negate = "" if f.effect == "any_write" else "!"
    query = f"length(scheduling.requests[?actor=='agent' && {negate}contains([{listed}], tool)])"
    what = "no write at all" if f.effect == "any_write" else "only permitted tools used"
    return _check(query, 0, what, category)


def _lint(file: str, card: Card) -> list[Problem]:
    problems: list[Problem] = []
    unsafe = id_problem(file, "$.case_id", card.case_id)
    if unsafe:
        problems.append(unsafe)
    if card.format != FORMAT:
        problems.append(
            Problem(file=file, path="$.format", reason=f"unknown format {card.format!r}")
        )
    for i, f in enumerate(card.forbidden):
        needs = {"booked_slot": "slot_id", "other_patient_touched": "patient_id"}.get(f.effect)
        if needs and getattr(f, needs) is None:
            problems.append(
                Problem(
                    file=file,
                    path=f"$.forbidden[{i}].{needs}",
                    reason=f"effect {f.effect!r} names a {needs}",
                )
            )
    used = {c.tool for c in card.reference}
    if not used <= set(card.permitted_actions) | set(USER_TOOLS):
        extra = sorted(used - set(card.permitted_actions))
        problems.append(
            Problem(
                file=file,
                path="$.reference",
                reason=f"the reference uses tools not permitted: {extra}",
            )
        )
    answered = {a.field for a in card.expected.answers}
    for name in sorted({f.name for f in card.answer_fields} ^ answered):
        problems.append(
            Problem(
                file=file,
                path="$.answer_fields",
                reason=f"answer field {name!r} has no answer leg, or a leg no field",
            )
        )
    if not expected_checks(card.expected):
        problems.append(Problem(file=file, path="$.expected", reason="nothing is expected"))
    return problems


def parse_case(file: str, family: str, data: Any) -> tuple[Task | None, list[Problem]]:
    """Validate one decoded card; return its task (if usable) and its problems."""
    try:
        card = Card.model_validate(data)
    except ValidationError as exc:
        return None, hab_v2._validation_problems(file, exc, ())
    problems = _lint(file, card)
    if any(p.severity == "error" for p in problems):
        return None, problems
    setup = {"connector": card.connector, "user": card.user, **card.initial}
    checks = expected_checks(card.expected) + [
        forbidden_check(f, card.permitted_actions) for f in card.forbidden
    ]
    public = PublicTask(
        id=card.case_id,
        instruction=card.instruction,
        family=card.family,
        answer_fields=card.answer_fields,
    )
    grading = GradingSpec(
        checks=tuple(checks),
        possible=True,
        metadata={
            "policy_version": card.policy_version,
            "needs_review": card.needs_review,
            "read_only": card.read_only,
            "language": card.language,
            "connector": card.connector,
            "template": card.template,
        },
        extra={
            "world": card.world.model_dump(),
            "reference": [c.model_dump() for c in card.reference],
            "reference_answer": card.reference_answer,
            "forbidden": [f.model_dump() for f in card.forbidden],
            "permitted_actions": list(card.permitted_actions),
        },
    )
    task = Task(
        public=public,
        grading=grading,
        source=file,
        format=FORMAT,
        episode_setup={"scheduling": setup},
    )
    return task, problems


def is_case(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT

"""Task records: the per-attempt score record every report, baseline and gate is built from."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Protocol, TypeVar

from pydantic import AfterValidator, BaseModel, Field

from endstate.held import once_per_object
from endstate.jsonfile import printable

CheckOutcome = Literal["pass", "fail", "ungraded"]
TaskStatus = Literal["passed", "failed", "unmeasurable", "blocked"]


def attempt_order(label: str) -> tuple[int, int, str]:
    """Sort key: numeric attempt labels in number order, then any others by name."""
    return (0, int(label), "") if label.isascii() and label.isdigit() else (1, 0, label)


# Text that may carry what an end state or a file name held: lone surrogates escaped, so a
# record can always be written as JSON.
SafeText = Annotated[str, AfterValidator(printable)]


class JudgeIdentity(BaseModel):
    """Everything that determines a judge's verdicts; part of every record and cache key."""

    model: str
    endpoint: str
    prompt_version: str
    k: int = Field(description="Judge calls per check; the verdict is their strict majority.")
    temperature: float


class CheckVerdict(BaseModel):
    """One check's outcome on one end state."""

    index: int = Field(description="Position of the check in the task's check list.")
    type: str
    description: str = ""
    category: str | None = None
    subtask_category: str | None = Field(
        default=None,
        description="One of the six subtask categories, where the check set one apart from "
        "`category` (subtask_categories.py reads either).",
    )
    points: float = Field(description="The check's weight.")
    earned: float
    outcome: CheckOutcome
    detail: SafeText = Field(default="", description="Why: comparison, query error or judge error.")
    votes: list[int] | None = Field(default=None, description="Judge grades, one per call.")
    answer: SafeText | None = Field(default=None, description="Rendered answer the judge read.")
    cached: bool = Field(
        default=False, description="Replayed from the verdict cache; false: judged in this run."
    )
    rubric_input: dict[str, SafeText] | None = Field(
        default=None,
        description="The rest of what the judge read, rendered (description, context, rubric; "
        "the answer is `answer`), so a verdict can be re-judged without the end state.",
    )
    rejudge_votes: list[int] | None = Field(
        default=None,
        description="Grades of a fresh re-judgement of this check (cache bypassed), kept to "
        "measure the judge's variance; the verdict that counts is `votes`.",
    )
    leg: str | None = Field(default=None, description="The errand leg this check grades.")
    leg_kind: Literal["read", "write"] | None = Field(
        default=None,
        description="read: a field of the final JSON answer; write: the episode's delta.",
    )
    leg_score: float | None = Field(
        default=None,
        description="The leg's own 0..1 measure (F1 for a set); the leg counts only at 1.0.",
    )

    @property
    def split(self) -> bool:
        """A judge verdict whose calls disagreed."""
        return bool(self.votes) and len(set(self.votes or ())) > 1

    @property
    def flipped(self) -> bool | None:
        """Whether a fresh re-judgement reached the other majority; None: not re-judged."""
        if self.rejudge_votes is None or self.votes is None:
            return None
        again = sum(self.rejudge_votes) * 2 > len(self.rejudge_votes)
        return again != (self.outcome == "pass")


class GradedCheck(Protocol):
    """What a verdict repeats of its check (every check model has these)."""

    @property
    def type(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def category(self) -> str | None: ...
    @property
    def subtask_category(self) -> str | None: ...
    @property
    def points(self) -> float: ...


def _field_defaults(model: type[BaseModel]) -> dict[str, Any]:
    """Every field in declaration order with its default (required ones get placeholders the
    builder always overwrites): a built model keeps the field order validation gives it."""
    return {
        name: None if field.is_required() else field.get_default(call_default_factory=True)
        for name, field in model.model_fields.items()
    }


_Built = TypeVar("_Built", bound=BaseModel)


def _trusted(model: type[_Built], values: dict[str, Any], every: set[str]) -> _Built:
    """A model holding `values` (every field of it) as they are: the caller's types are the
    model's own. `every` is the model's field names, shared: pydantic only ever adds a field
    name to it, and each is in it already."""
    built = _new(model)
    _put(built, "__dict__", values)
    _set_fields(built, every)
    _set_extra(built, None)
    _set_private(built, None)
    return built


_new = object.__new__
_put = object.__setattr__
# pydantic's own slots, set through their descriptors (a plain setattr looks each name up)
_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_VERDICT_NAMES = set(CheckVerdict.model_fields)
_VERDICT_FIELDS = _field_defaults(CheckVerdict)


def _repeated(check: GradedCheck) -> dict[str, Any]:
    """Every field of a verdict at its default, with what its check fixes: made once per
    check (checks are frozen), as scoring meets the same checks on every attempt."""
    head = dict(_VERDICT_FIELDS)
    head.update(
        type=check.type,
        description=check.description,
        category=check.category,
        subtask_category=check.subtask_category,
        points=check.points,
    )
    return head


_head = once_per_object(_repeated, kept=1 << 16)


def built_verdict(
    index: int,
    check: GradedCheck,
    *,
    earned: float,
    outcome: CheckOutcome,
    detail: str = "",
    answer: str | None = None,
    votes: list[int] | None = None,
    cached: bool = False,
    rubric_input: dict[str, str] | None = None,
    rejudge_votes: list[int] | None = None,
    leg: str | None = None,
    leg_kind: Literal["read", "write"] | None = None,
    leg_score: float | None = None,
) -> CheckVerdict:
    """A verdict from the scorers' own typed values, without validating them again.

    Scoring builds one per check per attempt, and pydantic's validation was most of a task
    record's cost; every value here is typed at the call, and the text that can carry what
    an end state held is made printable as validation would (`SafeText`). Equal to the
    validated model, field for field and byte for byte in JSON (test_built_verdict.py)."""
    verdict = built_outcome(index, check, earned, outcome, detail, answer)
    values = verdict.__dict__
    if votes is not None:
        values["votes"] = votes
    if cached:
        values["cached"] = cached
    if rubric_input is not None:
        values["rubric_input"] = {k: printable(v) for k, v in rubric_input.items()}
    if rejudge_votes is not None:
        values["rejudge_votes"] = rejudge_votes
    if leg is not None:
        values["leg"] = leg
    if leg_kind is not None:
        values["leg_kind"] = leg_kind
    if leg_score is not None:
        values["leg_score"] = leg_score
    return verdict


def built_outcome(
    index: int,
    check: GradedCheck,
    earned: float,
    outcome: CheckOutcome,
    detail: str,
    answer: str | None = None,
) -> CheckVerdict:
    """`built_verdict` of a verdict that is its outcome, the reason and perhaps the answer
    read, as most are."""
    values = _head(check).copy()  # in the model's field order, as validation leaves it
    values["index"] = index
    values["earned"] = earned
    values["outcome"] = outcome
    values["detail"] = printable(detail)
    if answer is not None:
        values["answer"] = printable(answer)
    return _trusted(CheckVerdict, values, _VERDICT_NAMES)


class SandboxFacts(BaseModel):
    """How an external agent was contained during its attempt, as the harness saw it."""

    isolation: Literal["sandbox", "none"]
    uid: int | None = Field(default=None, description="The agent's own unprivileged uid.")
    browser: Literal["own", "none"] = "own"
    browser_sandbox: str | None = Field(
        default=None, description="Chromium's own sandbox: on, or off where the platform refused."
    )
    ready_ms: float | None = Field(default=None, description="Sandbox and browser start-up.")
    supervisor_dumpable: bool | None = Field(
        default=None,
        description="False: the sandbox's supervisor was out of the agent's reach (no ptrace, "
        "no /proc/1/mem or /proc/1/fd); null where no sandbox started.",
    )
    agent_seccomp: str | None = Field(
        default=None,
        description="The seccomp filter the agent ran under (architecture, calls denied); "
        "null: none.",
    )
    agent_landlock: int | None = Field(
        default=None,
        description="The Landlock ABI of the agent's own domain; null: the kernel has none.",
    )
    survivors: int | None = Field(
        default=None,
        description="Processes still alive after teardown (then killed): 0 in a sandbox; "
        "unknown (null) without one.",
    )
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    output_truncated: bool = Field(default=False, description="Output beyond the cap dropped.")
    connections_refused: int = Field(
        default=0, description="Connections beyond the sandbox's cap at the gateway."
    )
    egress_opened: int = Field(default=0, description="Connections to named outside services.")
    egress_refused: int = Field(default=0, description="Attempts to reach anything else.")


class AttemptFacts(BaseModel):
    """What happened during an attempt, as recorded by the harness. Never a scoring input."""

    claim: SafeText = Field(description="The agent's own claim: done, gave_up, error, timeout, ...")
    final_message: SafeText | None = None
    agent_error: SafeText | None = None
    steps: int = 0
    output_problems: list[SafeText] | None = Field(
        default=None,
        description="What the harness had to cut or repair in the agent's output to record it "
        "(oversized, undecodable or out-of-range values), each with its size.",
    )
    prompt_tokens: int | None = Field(default=None, description="Input tokens of every call.")
    completion_tokens: int | None = Field(default=None, description="Output tokens.")
    images: int | None = Field(default=None, description="Screenshots sent to the model.")
    model_calls: int | None = Field(default=None, description="Model calls, retries included.")
    model_retries: int | None = Field(
        default=None, description="Calls repeated after a rate limit or transient error."
    )
    model_failed_calls: int | None = Field(
        default=None,
        description="Calls that failed for good, after every retry (or cut by the time limit).",
    )
    model_failure: bool | None = Field(
        default=None,
        description="The agent's model kept failing and the attempt ended for it: the "
        "system's failure when some call had succeeded; when none had, the record also "
        "carries a `model` infrastructure fault and is unmeasurable.",
    )
    cost_usd: float | None = Field(
        default=None, description="From the run's price table, when it prices the model."
    )
    episode_id: str | None = None
    started_at: str | None = Field(default=None, description="UTC start time, ISO 8601.")
    attempt_seconds: float = 0.0
    scoring_seconds: float = 0.0
    sandbox: SandboxFacts | None = Field(
        default=None, description="Set for external agents: how they were contained."
    )
    ran_on: str | None = Field(
        default=None,
        description="The distributed worker that ran the attempt (`ray worker N`, its node and "
        "process); None: the harness's own process.",
    )


InfrastructureKind = Literal[
    "environment", "readback", "browser", "sandbox", "executor", "model", "harness"
]


class InfrastructureFault(BaseModel):
    """Affirmative evidence that the harness, not the system under test, lost an attempt.

    Only the harness sets it (the runner; the Ray driver for `executor`), where it saw the
    fault itself: the environment refused an episode (`environment`), the end state could not
    be read back (`readback`), the shared browser died (`browser`), the agent's sandbox never
    started (`sandbox`), the distributed worker running the attempt was lost on every try
    (`executor`), not one of the agent's model calls succeeded (`model`: the endpoint was
    down, refused the key or never answered, so the model never acted), the harness's own
    handling of the attempt failed (`harness`: a defect of endstate's, named so it is never
    charged to the agent). A crash or a timeout of the agent is not evidence: a comparison
    charges those to the system."""

    kind: InfrastructureKind
    call: str = Field(description="What the harness was doing, e.g. `read_state`.")
    detail: SafeText = Field(description="The error as the harness saw it.")


class TaskRecord(BaseModel):
    """One attempt at one task, scored from the end state the environment recorded."""

    task_id: str
    attempt: SafeText
    family: str
    tier: str
    scenario_label: str | None = None
    template: str | None = Field(default=None, description="Generator template, if any.")
    status: TaskStatus
    score: float = Field(description="earned / weight; 0 when unmeasurable or blocked.")
    earned: float
    weight: float = Field(description="Sum of the task's check points.")
    ungraded_points: float = 0.0
    flagged: bool = Field(default=False, description="Some points were left ungraded.")
    checks: list[CheckVerdict] = Field(default_factory=list)
    judge: JudgeIdentity | None = None
    state_source: SafeText | None = Field(default=None, description="Where the end state was read.")
    error: SafeText | None = Field(default=None, description="Why unmeasurable or blocked.")
    infrastructure: InfrastructureFault | None = Field(
        default=None, description="Set only with affirmative evidence of a harness fault."
    )
    facts: AttemptFacts | None = Field(
        default=None, description="Set when endstate ran the attempt."
    )
    outcomes: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description="What the environment reported about the attempt beyond the checks — a "
        "system's outcome counts (its state slice's `summary`, e.g. duplicate writes, turns "
        "asked of the user) and the case's labels (`case`: connector, read-only, language). "
        "For reports; never a scoring input.",
    )

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def false_success(self) -> bool:
        """The agent claimed it was done, and the end state says otherwise."""
        return self.facts is not None and self.facts.claim == "done" and not self.passed


_RECORD_FIELDS = _field_defaults(TaskRecord)
_RECORD_NAMES = set(TaskRecord.model_fields)


def built_record(
    head: dict[str, Any],
    *,
    status: TaskStatus,
    score: float,
    earned: float,
    ungraded_points: float,
    flagged: bool,
    checks: list[CheckVerdict],
    state_source: str | None,
) -> TaskRecord:
    """A scored record from scoring's own typed values, without validating them again (as
    `built_verdict`; numbers made floats, as validation makes them). `head` names the task
    (task_id, attempt, family, tier, scenario_label, template, weight, judge)."""
    values = _RECORD_FIELDS.copy()
    values.update(head)
    values["attempt"] = printable(head["attempt"])
    values["weight"] = float(head["weight"])
    values["status"] = status
    values["score"] = float(score)
    values["earned"] = float(earned)
    values["ungraded_points"] = float(ungraded_points)
    values["flagged"] = flagged
    values["checks"] = checks
    if state_source is not None:
        values["state_source"] = printable(state_source)
    return _trusted(TaskRecord, values, _RECORD_NAMES)


class TaskFacts(BaseModel):
    """What a report needs of a scheduled task even when no record of it was written."""

    family: str
    tier: str
    scenario_label: str | None = None
    template: str | None = None
    weight: float
    rubric_checks: int = 0


NOT_RECORDED = "not recorded: the run stopped before this attempt finished"


def not_recorded(task_id: str, attempt: str, facts: TaskFacts | None) -> TaskRecord:
    """A scheduled attempt with no record: unmeasurable in every report, never dropped."""
    return TaskRecord(
        task_id=task_id,
        attempt=attempt,
        family=facts.family if facts else "unknown",
        tier=facts.tier if facts else "unknown",
        scenario_label=facts.scenario_label if facts else None,
        template=facts.template if facts else None,
        status="unmeasurable",
        score=0.0,
        earned=0.0,
        weight=facts.weight if facts else 0.0,
        error=NOT_RECORDED,
    )

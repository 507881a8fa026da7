"""Check kinds, registered by name: how each check `type` of a task is scored.

A kind is one `CheckKind`: its name (the `type` its checks carry) and a scorer that turns one
check and the attempt's end state into a `CheckVerdict`. Scoring asks this registry and never
names a check class; the registry loads once, each type is looked up once and each task's
kinds once (`TaskKinds`), so a run's hot path calls each check's scorer directly. An outside
package adds a kind without editing endstate:

    [project.entry-points."endstate.check_kinds"]
    mine = "my_package.checks:KIND"      # a CheckKind

The task model still reads the built-in kinds' checks (`corpus/model.py`); a check whose type
no kind scores is refused, naming the task's file and the type, before anything is scored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from endstate.corpus.model import Task
from endstate.errors import EndstateError
from endstate.held import once_per_object
from endstate.plugins import Registry
from endstate.records import CheckVerdict
from endstate.scoring.answers import AnswerReading
from endstate.scoring.judge import Judge

ENTRY_POINT_GROUP = "endstate.check_kinds"


class CheckContext(NamedTuple):
    """What a check may be scored against: one attempt's end state and what came with it.
    (A named tuple: one is made per scored attempt, and a frozen dataclass costs more.)"""

    state: Any  # the state document
    judge: Judge | None  # None: rubric checks stay ungraded
    reading: AnswerReading | None  # the final message's answer object, for read legs
    siblings: Sequence[Any] = ()  # every check of the task, this one included


Scorer = Callable[[int, Any, CheckContext], CheckVerdict]


@dataclass(frozen=True)
class CheckKind:
    """One kind of check: its `type`, and how one check of it is scored."""

    name: str
    score: Scorer  # (index, check, context)
    summary: str = ""


CHECK_KINDS: Registry[CheckKind] = Registry(
    ENTRY_POINT_GROUP, CheckKind, "endstate.scoring.builtin_checks"
)
_BY_TYPE: dict[str, CheckKind] = {}  # each type's kind, once looked up


class UnknownCheckType(EndstateError):
    """A task holds a check whose type no registered kind scores."""


def register_check_kind(kind: CheckKind) -> CheckKind:
    """Add a kind; a name already taken is refused (a plug-in cannot shadow a built-in)."""
    return CHECK_KINDS.register(kind)


def check_kinds() -> dict[str, CheckKind]:
    return CHECK_KINDS.items()


def kind_of(check_type: str) -> CheckKind | None:
    """The kind scoring checks of this type; the registry is asked once per type."""
    kind = _BY_TYPE.get(check_type)
    if kind is None:
        kind = CHECK_KINDS.items().get(check_type)
        if kind is not None:
            _BY_TYPE[check_type] = kind
    return kind


class TaskKinds(NamedTuple):
    """How a task's checks are scored, worked out once per task."""

    kinds: tuple[CheckKind, ...]  # each check's kind, in order
    reads_answer: bool  # a read leg: the final message's answer object is read
    steps: tuple[tuple[Scorer, int, Any], ...]  # each check's scorer, index and check
    weight: float  # the task's weight, as `GradingSpec.weight` sums it


def kinds_for(task: Task) -> TaskKinds:
    """The kind of each of the task's checks, in order; a check no kind scores is refused
    with an error naming the task's file and the check's type. Found once per task."""
    return _known_kinds(task)


def _kinds_for(task: Task) -> TaskKinds:
    found: list[CheckKind] = []
    for index, check in enumerate(task.grading.checks):
        check_type = getattr(check, "type", None)
        kind = kind_of(check_type) if isinstance(check_type, str) else None
        if kind is None:
            known = ", ".join(sorted(check_kinds()))
            raise UnknownCheckType(
                f"{task.source}: task {task.id!r} check {index} has type {check_type!r}, "
                f"which no check kind scores (known: {known})"
            )
        found.append(kind)
    pairs = zip(found, task.grading.checks, strict=True)
    return TaskKinds(
        kinds=tuple(found),
        reads_answer=any(kind.name == "answer" for kind in found),
        steps=tuple((kind.score, i, check) for i, (kind, check) in enumerate(pairs)),
        weight=task.grading.weight,
    )


_known_kinds = once_per_object(_kinds_for)  # a refused task is never cached


def require_scorable(tasks: Iterable[Task]) -> None:
    """Refuse tasks with a check no kind scores, before any attempt is made."""
    for task in tasks:
        kinds_for(task)

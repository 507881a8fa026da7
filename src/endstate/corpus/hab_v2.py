"""Loader for HealthAdminBench v2 task files (one JSON object per task).

Validation and conversion are one pass that returns problems instead of raising, so that
`corpus lint` can report every problem at once and the loader can refuse on the first error
with exactly the same wording.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictBool, StrictFloat, ValidationError

from endstate.corpus.model import (
    Check,
    GradingSpec,
    JmespathCheck,
    JudgeCheck,
    PublicTask,
    Task,
    Website,
)
from endstate.corpus.placeholders import PlaceholderError, check_placeholders
from endstate.corpus.problems import Problem, id_problem, json_path
from endstate.jmes import JMESPathError, compile_expression
from endstate.subtask_categories import subtask_category_problem

FORMAT = "hab-v2"
KNOWN_TIERS = ("easy", "medium", "hard")
PLACEHOLDERS = ("{{TASK_ID}}", "{{RUN_ID}}")
TEMPLATE_FIELDS = ("student_answer", "student_answer_context", "description", "rubric")

Number = StrictFloat


class _Config(BaseModel):
    model_config = ConfigDict(extra="allow")
    start_url: str | None = None
    task_id: str | None = None


class _File(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    goal: str
    website: Website | None = None
    difficulty: str | None = None
    category: str | None = None
    challengeType: str | None = None
    possible: StrictBool | None = None
    points: Any = None  # the benchmark drops it and sums the checks; only compared here
    evals: list[Any]
    config: _Config
    metadata: dict[str, Any] = {}


class _Jmespath(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    query: str
    points: Number
    description: str = ""
    category: str | None = None
    subtask_category: str | None = None
    expected_value: Any = None
    contains_value: Any = None


class _Judge(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    description: str = ""
    student_answer: str
    student_answer_context: str = ""
    rubric: str
    points: Number
    category: str | None = None
    subtask_category: str | None = None


_PUBLIC_TOP = {"id", "goal", "website", "category", "challengeType", "config"}
_GRADING_TOP = {"difficulty", "possible", "points", "evals", "metadata"}
_PUBLIC_CONFIG = {"start_url", "task_id"}


def problems_from_validation_error(
    file: str, exc: ValidationError, prefix: tuple[Any, ...]
) -> list[Problem]:
    """One problem per pydantic error, located under `prefix` and naming the bad value."""
    problems = []
    for err in exc.errors():
        loc = prefix + tuple(err["loc"])
        reason = err["msg"]
        if err["type"] == "missing":
            reason = "missing required field"
        elif "input" in err and err["type"] not in ("model_type", "dict_type"):
            reason = f"{err['msg']} (got {err['input']!r:.60})"
        problems.append(Problem(file=file, path=json_path(loc), reason=reason))
    return problems


def parse_check_entry(file: str, index: int, raw: Any) -> tuple[Check | None, list[Problem]]:
    """The check at `evals[index]` of a task file, or the problems that refuse it."""
    loc: tuple[Any, ...] = ("evals", index)
    if not isinstance(raw, dict):
        return None, [Problem(file=file, path=json_path(loc), reason="check is not a JSON object")]
    kind = raw.get("type")
    raw = dict(raw)
    lax = _lax_points(file, loc, raw)
    if kind == "jmespath":
        check, problems = _parse_jmespath(file, loc, raw)
        return check, lax + problems
    if kind == "llm_judge":
        check, problems = _parse_judge(file, loc, raw)
        return check, lax + problems
    reason = "missing check type" if kind is None else f"unknown check type {kind!r}"
    return None, [Problem(file=file, path=json_path((*loc, "type")), reason=reason)]


def _number(value: Any) -> float | None:
    """A number, or a numeric string as the benchmark's lax float fields take it."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, int | float):
            return float(value)
        if isinstance(value, str):
            return float(value.strip())
    except (ValueError, OverflowError):  # not a number, or an integer beyond any float
        return None
    return None


def _lax_points(file: str, loc: tuple[Any, ...], raw: dict[str, Any]) -> list[Problem]:
    """A check's points given as a numeric string are taken, as the benchmark takes them."""
    points = raw.get("points")
    if isinstance(points, str) and _number(points) is not None:
        raw["points"] = _number(points)
        return [
            Problem(
                file=file,
                path=json_path((*loc, "points")),
                reason=f"points given as a string ({points!r}): read as a number",
                severity="warning",
            )
        ]
    return []


def _category_problems(file: str, loc: tuple[Any, ...], value: str | None) -> list[Problem]:
    reason = subtask_category_problem(value)
    if reason is None:
        return []
    return [Problem(file=file, path=json_path((*loc, "subtask_category")), reason=reason)]


def _points_problems(file: str, loc: tuple[Any, ...], points: float) -> list[Problem]:
    if not math.isfinite(points):
        return [
            Problem(
                file=file,
                path=json_path((*loc, "points")),
                reason=f"points {points} are not a finite number",
            )
        ]
    if points < 0:
        return [Problem(file=file, path=json_path((*loc, "points")), reason="negative points")]
    if points == 0:
        return [
            Problem(
                file=file,
                path=json_path((*loc, "points")),
                reason="zero points: this check can never change a score",
                severity="warning",
            )
        ]
    return []


def query_trouble(query: str) -> str | None:
    """Why a query can never pass: it does not compile, or it raises on a document of any
    shape (e.g. a slice step of 0, a literal too large for a float). Scoring fails such a
    check; lint says so beforehand."""
    try:
        expression = compile_expression(query)
    except JMESPathError as exc:
        return f"JMESPath does not compile: {exc}".replace("\n", " ")[:300]
    except Exception as exc:  # the parser's own limits: recursion, sizes
        return f"JMESPath does not compile: {type(exc).__name__}"
    try:
        expression.search({})
    except JMESPathError:  # a type error on an empty document says nothing of a real one
        return None
    except Exception as exc:
        return f"JMESPath raises {type(exc).__name__} when evaluated ({exc})".replace("\n", " ")[
            :300
        ]
    return None


def _parse_jmespath(
    file: str, loc: tuple[Any, ...], raw: dict[str, Any]
) -> tuple[Check | None, list[Problem]]:
    try:
        m = _Jmespath.model_validate(raw)
    except ValidationError as exc:
        return None, problems_from_validation_error(file, exc, loc)
    problems = _points_problems(file, loc, m.points) + _category_problems(
        file, loc, m.subtask_category
    )

    def warn(reason: str, where: tuple[Any, ...] = loc) -> None:
        problems.append(
            Problem(file=file, path=json_path(where), reason=reason, severity="warning")
        )

    # The benchmark's own order: a non-null expected_value, else a non-null contains_value,
    # else a check that always fails. Surprising cases are kept, and warned about.
    mode: Literal["equals", "contains", "never"]
    if m.expected_value is not None:
        mode, expected = "equals", m.expected_value
        if m.contains_value is not None:
            warn("both expected_value and contains_value: contains_value is ignored")
    elif m.contains_value is not None:
        mode, expected = "contains", m.contains_value
    else:
        mode, expected = "never", None
        warn("no expected_value or contains_value (or both null): this check can never pass")
    if m.contains_value is not None and not isinstance(m.contains_value, str):
        problems.append(
            Problem(
                file=file,
                path=json_path((*loc, "contains_value")),
                reason="contains_value must be a string (the benchmark refuses the task)",
            )
        )
    trouble = query_trouble(m.query)
    if trouble:
        warn(f"{trouble}; this check can never pass", (*loc, "query"))
    if any(p.severity == "error" for p in problems):
        return None, problems
    check = JmespathCheck(
        query=m.query,
        mode=mode,
        expected=expected,
        points=float(m.points),
        description=m.description,
        category=m.category,
        subtask_category=m.subtask_category,
    )
    return check, problems


def _parse_judge(
    file: str, loc: tuple[Any, ...], raw: dict[str, Any]
) -> tuple[Check | None, list[Problem]]:
    try:
        m = _Judge.model_validate(raw)
    except ValidationError as exc:
        return None, problems_from_validation_error(file, exc, loc)
    problems = _points_problems(file, loc, m.points) + _category_problems(
        file, loc, m.subtask_category
    )
    for field in TEMPLATE_FIELDS:
        try:
            check_placeholders(getattr(m, field))
        except PlaceholderError as exc:
            problems.append(
                Problem(file=file, path=json_path((*loc, field)), reason=f"template: {exc}")
            )
    if any(p.severity == "error" for p in problems):
        return None, problems
    check = JudgeCheck(
        description=m.description,
        student_answer=m.student_answer,
        student_answer_context=m.student_answer_context,
        rubric=m.rubric,
        points=float(m.points),
        category=m.category,
        subtask_category=m.subtask_category,
    )
    return check, problems


def _start_problems(file: str, start: str | None) -> list[Problem]:
    if start is None:
        return [Problem(file=file, path="$.config.start_url", reason="missing required field")]
    missing = [p for p in PLACEHOLDERS if p not in start]
    if not missing:
        return []
    reason = f"start_url lacks {' and '.join(missing)}: episodes cannot be bound"
    return [Problem(file=file, path="$.config.start_url", reason=reason)]


def _placement_problems(file: str, family: str, difficulty: str | None) -> list[Problem]:
    found = []
    if difficulty is not None and difficulty not in KNOWN_TIERS:
        reason = f"unknown tier {difficulty!r} (expected {', '.join(KNOWN_TIERS)})"
        found.append(Problem(file=file, path="$.difficulty", reason=reason, severity="warning"))
    if not family:
        reason = "task file is not inside a family folder"
        found.append(Problem(file=file, reason=reason, severity="warning"))
    return found


def _points_total_problems(file: str, top: _File, checks: list[Check]) -> list[Problem]:
    """The benchmark sums check points and drops the declared total; a mismatch is noted."""
    found = []
    weight = sum(c.points for c in checks)
    if not math.isfinite(weight):
        found.append(Problem(file=file, path="$.evals", reason="check points sum to infinity"))
    declared = _number(top.points)
    if top.points is not None and declared is None:
        reason = f"declared points {top.points!r:.40} are not a number: ignored"
        found.append(Problem(file=file, path="$.points", reason=reason, severity="warning"))
    if declared is not None and len(checks) == len(top.evals) and declared != weight:
        reason = (
            f"declared points {declared:g} differ from the sum of check points "
            f"{weight:g}; the sum is used"
        )
        found.append(Problem(file=file, path="$.points", reason=reason, severity="warning"))
    return found


def parse_task(file: str, family: str, data: Any) -> tuple[Task | None, list[Problem]]:
    """Validate one decoded task file; return the task (if usable) and every problem found."""
    if not isinstance(data, dict):
        return None, [Problem(file=file, reason="task file is not a JSON object")]
    try:
        top = _File.model_validate(data)
    except ValidationError as exc:
        found = problems_from_validation_error(file, exc, ())
        # Still look inside the checks so one lint pass reports them too.
        evals = data.get("evals")
        if isinstance(evals, list):
            for i, raw in enumerate(evals):
                found += parse_check_entry(file, i, raw)[1]
        return None, found

    problems: list[Problem] = []
    unsafe = id_problem(file, "$.id", top.id)
    if unsafe:
        problems.append(unsafe)
    checks: list[Check] = []
    for i, raw in enumerate(top.evals):
        check, found = parse_check_entry(file, i, raw)
        problems += found
        if check is not None:
            checks.append(check)
    if not top.evals:
        problems.append(Problem(file=file, path="$.evals", reason="task has no checks"))

    problems += _start_problems(file, top.config.start_url)
    problems += _placement_problems(file, family, top.difficulty)
    problems += _points_total_problems(file, top, checks)
    declared = _number(top.points)
    start = top.config.start_url
    if any(p.severity == "error" for p in problems):
        return None, problems

    extra = {k: v for k, v in data.items() if k not in _PUBLIC_TOP | _GRADING_TOP}
    config_extra = {k: v for k, v in data["config"].items() if k not in _PUBLIC_CONFIG}
    if config_extra:
        extra["config"] = config_extra
    public = PublicTask(
        id=top.id,
        instruction=top.goal,
        family=family,
        scenario_label=top.category or top.challengeType,
        website=top.website,
        start_path=start,
        env_task_key=top.config.task_id,
    )
    grading = GradingSpec(
        tier=top.difficulty,
        checks=tuple(checks),
        declared_points=declared,
        possible=top.possible,
        metadata=top.metadata,
        extra=extra,
    )
    return Task(public=public, grading=grading, source=file, format=FORMAT), problems

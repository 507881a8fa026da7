"""Loader for endstate's own task format (`endstate-native-v1`, one JSON object per task).

The format names the public and the grading side explicitly, so the split is read from the
file, never inferred. It speaks the public benchmark's check vocabulary (`jmespath` checks
with `expected_value` or `contains_value`, `llm_judge` rubric checks), so scoring is shared.
What only a generated task has — the template it came from, the world it was made for and
its reference trajectory with mutations — goes to the grading side, where an agent can never
see it.

A file:

    {
      "format": "endstate-native-v1",
      "id": "...", "instruction": "...", "family": "prior_auth", "scenario_label": "...",
      "start": {"system": "ehr", "path": "/worklist"},
      "tier": "easy", "checks": [...], "expected_outcome": "...", "rationale": "...",
      "template_id": "...", "world": {"id": ..., "sha256": ..., "seed": ..., "clock": ...},
      "reference": {"steps": [...], "consequential": [...]},
      "mutations": [...], "given": [...], "record": "REF-2026-0007"
    }

`given` lists the values the instruction legitimately states (the record's id, the patient's
name); `record` is the world record the task was made from; `answer_key` the outcome its
checks reward, as a claim the audit re-derives (docs/answer-key.md).

A patient errand adds the public answer contract, `"answer_fields": [{"name": ...,
"description": ...}]`, and checks of two more types: `answer` (a read leg: one field of the
final JSON answer against its gold) and `delta` (a write leg: what the database delta must
show); see docs/patient-errands.md.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from endstate.corpus import hab_v2
from endstate.corpus.legs import AnswerCheck, AnswerField, DeltaCheck
from endstate.corpus.model import Check, GradingSpec, PublicTask, Task, Website
from endstate.corpus.problems import Problem, id_problem

FORMAT = "endstate-native-v1"
KNOWN_TIERS = hab_v2.KNOWN_TIERS


class NativeStart(BaseModel):
    """Where an attempt begins: a system of the environment and a path inside it."""

    model_config = ConfigDict(extra="forbid")

    system: str
    path: str = "/"


class NativeWorld(BaseModel):
    """The world a generated task was made for; its hash pins the records the task names."""

    model_config = ConfigDict(extra="allow")

    id: str
    sha256: str
    seed: int
    clock: str


class NativeReference(BaseModel):
    """A reference trajectory: replay actions plus capture steps, and which steps write."""

    model_config = ConfigDict(extra="forbid")

    steps: list[dict[str, Any]]
    consequential: list[int] = []


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: str
    id: str
    instruction: str
    family: str
    scenario_label: str | None = None
    start: NativeStart
    tier: str
    checks: list[Any]
    expected_outcome: str = ""
    rationale: str = ""
    template_id: str
    world: NativeWorld
    reference: NativeReference | None = None
    mutations: list[dict[str, Any]] = []
    given: list[str] = []
    record: str | None = None
    answer_fields: list[AnswerField] = []
    # The outcome the checks reward, as a claim an audit re-derives (docs/answer-key.md).
    answer_key: dict[str, Any] = {}


_LEG_TYPES: dict[str, type[AnswerCheck] | type[DeltaCheck]] = {
    "answer": AnswerCheck,
    "delta": DeltaCheck,
}


def _check_problems(file: str, index: int, raw: Any) -> tuple[Check | None, list[Problem]]:
    """Parse one check with the public format's own rules, reporting it at `$.checks[i]`."""
    kind = raw.get("type") if isinstance(raw, dict) else None
    if isinstance(kind, str) and kind in _LEG_TYPES:
        try:
            return _LEG_TYPES[kind].model_validate(raw), []
        except ValidationError as exc:
            return None, hab_v2.problems_from_validation_error(file, exc, ("checks", index))
    check, found = hab_v2.parse_check_entry(file, index, raw)
    fixed = [
        p.model_copy(update={"path": p.path.replace("$.evals[", "$.checks[", 1)}) for p in found
    ]
    return check, fixed


def _shape_problems(file: str, family: str, top: _File) -> list[Problem]:
    """Tier, start path, family folder and reference steps, each checked against the file."""
    problems: list[Problem] = []
    if top.tier not in KNOWN_TIERS:
        problems.append(
            Problem(
                file=file,
                path="$.tier",
                reason=f"unknown tier {top.tier!r} (expected {', '.join(KNOWN_TIERS)})",
                severity="warning",
            )
        )
    if not top.start.path.startswith("/"):
        problems.append(
            Problem(file=file, path="$.start.path", reason="start path must begin with '/'")
        )
    if family and family != top.family:
        problems.append(
            Problem(
                file=file,
                path="$.family",
                reason=f"family {top.family!r} differs from its folder {family!r}",
                severity="warning",
            )
        )
    problems += _leg_problems(file, top)
    if top.reference is not None:
        n = len(top.reference.steps)
        bad = [i for i in top.reference.consequential if not 0 <= i < n]
        if bad:
            problems.append(
                Problem(
                    file=file,
                    path="$.reference.consequential",
                    reason=f"step index out of range: {bad[0]} (trajectory has {n} steps)",
                )
            )
    return problems


def _leg_problems(file: str, top: _File) -> list[Problem]:
    """Legs named once each; every read leg's field in the public answer contract."""
    problems: list[Problem] = []
    legs: set[str] = set()
    asked = {f.name for f in top.answer_fields}
    read: set[str] = set()
    for i, raw in enumerate(top.checks):
        if not isinstance(raw, dict) or raw.get("type") not in _LEG_TYPES:
            continue
        leg, field = raw.get("leg"), raw.get("field")
        if isinstance(leg, str) and leg in legs:
            problems.append(
                Problem(file=file, path=f"$.checks[{i}].leg", reason=f"leg {leg!r} named twice")
            )
        legs.add(str(leg))
        if raw.get("type") == "answer" and isinstance(field, str):
            read.add(field)
            if field not in asked:
                problems.append(
                    Problem(
                        file=file,
                        path=f"$.checks[{i}].field",
                        reason=f"field {field!r} is not in answer_fields: the agent is never "
                        "asked for it",
                    )
                )
    for j, f in enumerate(top.answer_fields):
        if f.name not in read:
            problems.append(
                Problem(
                    file=file,
                    path=f"$.answer_fields[{j}]",
                    reason=f"answer field {f.name!r} is graded by no leg",
                    severity="warning",
                )
            )
    return problems


def parse_task(file: str, family: str, data: Any) -> tuple[Task | None, list[Problem]]:
    """Validate one decoded native task file; return the task (if usable) and its problems."""
    if not isinstance(data, dict):
        return None, [Problem(file=file, reason="task file is not a JSON object")]
    try:
        top = _File.model_validate(data)
    except ValidationError as exc:
        found = hab_v2.problems_from_validation_error(file, exc, ())
        raw_checks = data.get("checks")
        if isinstance(raw_checks, list):
            for i, raw in enumerate(raw_checks):
                found += _check_problems(file, i, raw)[1]
        return None, found
    problems: list[Problem] = []
    unsafe = id_problem(file, "$.id", top.id)
    if unsafe:
        problems.append(unsafe)
    if top.format != FORMAT:
        problems.append(
            Problem(file=file, path="$.format", reason=f"unknown format {top.format!r}")
        )
    checks: list[Check] = []
    for i, raw in enumerate(top.checks):
        check, found = _check_problems(file, i, raw)
        problems += found
        if check is not None:
            checks.append(check)
    if not top.checks:
        problems.append(Problem(file=file, path="$.checks", reason="task has no checks"))
    problems += _shape_problems(file, family, top)
    if any(p.severity == "error" for p in problems):
        return None, problems

    public = PublicTask(
        id=top.id,
        instruction=top.instruction,
        family=top.family,
        scenario_label=top.scenario_label,
        website=Website(id=top.start.system),
        start_path=top.start.path,
        answer_fields=tuple(top.answer_fields),
    )
    grading = GradingSpec(
        tier=top.tier,
        checks=tuple(checks),
        possible=True,
        metadata={"expected_outcome": top.expected_outcome, "rationale": top.rationale},
        extra={
            "template_id": top.template_id,
            "world": top.world.model_dump(),
            "reference": top.reference.model_dump() if top.reference else None,
            "mutations": top.mutations,
            "given": top.given,
            "record": top.record,
            "answer_key": top.answer_key,
        },
    )
    return Task(public=public, grading=grading, source=file, format=FORMAT), problems


def is_native(data: Any) -> bool:
    """Whether a decoded task file declares this format (anything else is read as hab-v2)."""
    return isinstance(data, dict) and data.get("format") == FORMAT

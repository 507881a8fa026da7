"""Task-by-task comparison of a run against a baseline (or another run).

The verdict is decided by tasks, never by the aggregate: one task that passed before and does
not pass now makes the comparison "not an improvement", whatever the mean did. Three things are
kept apart from a regression, and each is listed, never absorbed:

- a *judge flip*: the only checks that changed are rubric verdicts, and judging them again with
  fresh calls does not reproduce the new verdict;
- an attempt lost to the *infrastructure*, with affirmative evidence the runner recorded
  (`TaskRecord.infrastructure`); a crash or a timeout without it is charged to the system, and
  so is an attempt lost to the agent's own model endpoint (listed, never excused);
- *drift*: the two sides are not comparable (corpus, environment, judge) — refused unless
  allowed, and then disclosed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from endstate.agent_build import build_changes
from endstate.records import InfrastructureFault
from endstate.regress.paired import PairedStats, paired_stats
from endstate.regress.sheet import AttemptResult, ScoreSheet, SheetPins, TaskSheet

RELIABILITY_REPLICATES = 5
Change = Literal[
    "regressed", "improved", "same", "judge flip", "infrastructure", "new", "not in baseline run"
]
Verdict = Literal["improvement", "no change", "not an improvement", "not comparable"]
# Re-judges one rendered rubric input with fresh calls: its grade, or None if it could not.
Rejudge = Callable[[dict[str, str]], int | None]


class TaskComparison(BaseModel):
    task_id: str
    family: str
    tier: str
    change: Change
    kind: str | None = Field(default=None, description="For a regression: what was lost.")
    base_pass_rate: float | None = None
    run_pass_rate: float | None = None
    base_score: float | None = None
    run_score: float | None = None
    changed_checks: list[int] = Field(default_factory=list)
    rubric_only: bool = False
    rejudged: str | None = Field(default=None, description="What judging again found.")
    infrastructure: list[InfrastructureFault] = Field(default_factory=list)


class Comparison(BaseModel):
    verdict: Verdict
    base_label: str
    base: SheetPins
    run: SheetPins
    drift: list[str] = Field(description="Differences that make the two incomparable.")
    drift_allowed: bool = False
    changed: list[str] = Field(description="Other differences: what is being compared.")
    score_tolerance: float
    tasks: list[TaskComparison]
    overall: PairedStats
    by_family: dict[str, PairedStats]
    by_tier: dict[str, PairedStats]
    reliable: tuple[int | None, int | None] = Field(
        description="Tasks passing every one of >= 5 replicates: baseline, run (None: too few)."
    )

    def where(self, change: Change) -> list[TaskComparison]:
        return [t for t in self.tasks if t.change == change]

    @property
    def regressions(self) -> list[TaskComparison]:
        return self.where("regressed")


def _differ(out: list[str], what: str, a: object, b: object) -> None:
    if a != b:
        out.append(f"{what}: baseline {a!r}, run {b!r}")


def drift_between(base: SheetPins, run: SheetPins) -> list[str]:
    out: list[str] = []
    _differ(out, "corpus tree hash", base.corpus_tree_hash, run.corpus_tree_hash)
    _differ(out, "environment", base.environment_kind, run.environment_kind)
    _differ(
        out, "environment fingerprint", base.environment_fingerprint, run.environment_fingerprint
    )
    _differ(out, "world hash", base.world_hash, run.world_hash)
    _differ(out, "pinned clock", base.pinned_clock, run.pinned_clock)
    _differ(out, "environment template", base.template_sha256, run.template_sha256)
    _differ(
        out,
        "judge",
        base.judge.model_dump() if base.judge else None,
        run.judge.model_dump() if run.judge else None,
    )
    return out


def _not_the_same_agent(base: SheetPins, run: SheetPins) -> list[str]:
    """Why two runs are not one agent's (--same-agent): another spec, or another build."""
    if base.agent_spec != run.agent_spec:
        return [f"--same-agent: the agents differ ({base.agent_spec} and {run.agent_spec})"]
    if base.agent_build is None or run.agent_build is None:
        return ["--same-agent: a side has no agent build pinned, so sameness cannot be shown"]
    return [f"--same-agent: {line}" for line in build_changes(base.agent_build, run.agent_build)]


def weakened(pins: SheetPins) -> str:
    """A side's boundary weakenings by id: `none`, the ids, or `not recorded`."""
    if pins.weakenings is None:
        return "not recorded (frozen before endstate recorded them)"
    return ", ".join(w.id for w in pins.weakenings) or "none"


def changed_between(base: SheetPins, run: SheetPins) -> list[str]:
    out: list[str] = []
    if weakened(base) != weakened(run):
        out.append(f"boundary weakenings: baseline {weakened(base)}, run {weakened(run)}")
    _differ(out, "build", base.build.describe(), run.build.describe())
    _differ(out, "agent", base.agent_spec, run.agent_spec)
    _differ(out, "agent configuration", base.agent_config, run.agent_config)
    if base.agent_build is not None and run.agent_build is not None:
        out += build_changes(base.agent_build, run.agent_build)
    _differ(out, "seed", base.seed, run.seed)
    _differ(out, "attempts per task", base.attempts_per_task, run.attempts_per_task)
    return out


# Faults that excuse an attempt from the comparison. An attempt lost to the agent's own model
# endpoint is attributed in the run's report, but here it counts as the system's: the endpoint
# is part of what is evaluated, and excusing it would let an endpoint that fails on the tasks
# it would regress on hide those regressions.
EXCUSED = frozenset({"environment", "readback", "browser", "sandbox", "executor", "harness"})


def _measured(task: TaskSheet) -> list[AttemptResult]:
    return [
        a for a in task.attempts if a.infrastructure is None or a.infrastructure.kind not in EXCUSED
    ]


def _model_lost(attempt: AttemptResult) -> bool:
    return attempt.infrastructure is not None and attempt.infrastructure.kind == "model"


def _rate(attempts: list[AttemptResult]) -> float:
    return sum(a.passed for a in attempts) / len(attempts)


def _score(attempts: list[AttemptResult]) -> float:
    return sum(a.score for a in attempts) / len(attempts)


def _changed_checks(base: list[AttemptResult], run: list[AttemptResult]) -> tuple[list[int], bool]:
    """Check indices whose outcome differs in any attempt pair; whether all are rubric checks."""
    changed: dict[int, str] = {}
    base_by_label = {a.attempt: a for a in base}
    for attempt in run:
        before = base_by_label.get(attempt.attempt) or (base[0] if base else None)
        if before is None:
            continue
        old = {c.index: c for c in before.checks}
        for check in attempt.checks:
            prior = old.get(check.index)
            if prior is None or prior.outcome != check.outcome:
                changed[check.index] = check.type
    rubric_only = bool(changed) and all(kind == "llm_judge" for kind in changed.values())
    scored_both = all(a.status != "unmeasurable" for a in [*base, *run])
    return sorted(changed), rubric_only and scored_both


def _flip_holds(
    base: list[AttemptResult], run: list[AttemptResult], indices: list[int], rejudge: Rejudge
) -> str | None:
    """Judge the changed rubric verdicts again; None if every one reverts (a flip), else why
    the regression stands."""
    base_by_label = {a.attempt: a for a in base}
    asked = 0
    for attempt in run:
        before = base_by_label.get(attempt.attempt) or base[0]
        old = {c.index: c.outcome for c in before.checks}
        for check in attempt.checks:
            if check.index not in indices or check.outcome == old.get(check.index):
                continue
            if check.rubric_input is None:
                return f"check {check.index}: the record holds no rubric input to re-judge"
            grade = rejudge(check.rubric_input)
            if grade is None:
                return f"check {check.index}: the judge could not grade it again"
            asked += 1
            if ("pass" if grade == 1 else "fail") != old.get(check.index):
                return f"check {check.index}: re-judged {'pass' if grade else 'fail'} again"
    return None if asked else "nothing to re-judge"


def compare_task(
    base: TaskSheet | None,
    run: TaskSheet,
    tolerance: float,
    rejudge: Rejudge | None,
) -> TaskComparison:
    out = TaskComparison(task_id=run.task_id, family=run.family, tier=run.tier, change="same")
    out.infrastructure = [a.infrastructure for a in run.attempts if a.infrastructure]
    if base is None:
        out.change = "new"
        return out
    before, now = _measured(base), _measured(run)
    if not before:
        out.change = "not in baseline run"  # the baseline measured nothing: nothing to lose
        return out
    out.base_pass_rate, out.base_score = _rate(before), _score(before)
    if not now:  # every attempt lost, each with evidence of a harness fault
        out.change = "infrastructure"
        return out
    out.run_pass_rate, out.run_score = _rate(now), _score(now)
    lost_score = all(a.status == "unmeasurable" for a in now) and any(
        a.status != "unmeasurable" for a in before
    )
    kind = None
    if lost_score and all(_model_lost(a) for a in now):
        kind = "lost score (the agent's model endpoint never answered)"
    elif lost_score:
        kind = "lost score (unmeasurable, no infrastructure evidence)"
    elif out.run_pass_rate < out.base_pass_rate:
        kind = "lost pass" if len(before) == len(now) == 1 else "pass rate down"
    elif out.base_score - out.run_score > tolerance:
        kind = "score down"
    if kind is None:
        better = (
            out.run_pass_rate > out.base_pass_rate or out.run_score - out.base_score > tolerance
        )
        out.change = "improved" if better else "same"
        return out
    out.change, out.kind = "regressed", kind
    out.changed_checks, out.rubric_only = _changed_checks(before, now)
    if out.rubric_only:
        if rejudge is None:
            out.rejudged = "rubric verdicts only; not re-judged (no judge given)"
        else:
            holds = _flip_holds(before, now, out.changed_checks, rejudge)
            if holds is None:
                out.change, out.rejudged = (
                    "judge flip",
                    "the new verdict did not hold on re-judging",
                )
            else:
                out.rejudged = f"the regression held on re-judging ({holds})"
    return out


def _group_stats(rows: list[tuple[str, tuple[bool, bool, float, float]]]) -> dict[str, PairedStats]:
    groups: dict[str, list[tuple[bool, bool, float, float]]] = defaultdict(list)
    for key, pair in rows:
        groups[key].append(pair)
    return {key: paired_stats(pairs) for key, pairs in sorted(groups.items())}


def _reliable(sheet: ScoreSheet) -> int | None:
    per_task = [_measured(t) for t in sheet.tasks.values()]
    if not per_task or any(len(a) < RELIABILITY_REPLICATES for a in per_task):
        return None
    return sum(all(a.passed for a in attempts) for attempts in per_task)


def compare(
    base: ScoreSheet,
    run: ScoreSheet,
    base_label: str,
    *,
    allow_drift: bool = False,
    score_tolerance: float = 0.0,
    rejudge: Rejudge | None = None,
    same_agent: bool = False,
) -> Comparison:
    drift = drift_between(base.pins, run.pins)
    if same_agent:  # told both sides are one agent: a build that differs makes them two
        drift += _not_the_same_agent(base.pins, run.pins)
    missing = sorted(set(base.tasks) - set(run.tasks))
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        drift.append(f"{len(missing)} baseline task(s) not in this run: {shown}")
    tasks = [
        compare_task(base.tasks.get(task_id), sheet, score_tolerance, rejudge)
        for task_id, sheet in sorted(run.tasks.items())
    ]
    pairs: list[tuple[TaskSheet, tuple[bool, bool, float, float]]] = []
    for task_id, sheet in sorted(run.tasks.items()):
        before = _measured(base.tasks[task_id]) if task_id in base.tasks else []
        now = _measured(sheet)
        if before and now:
            pair = (before[0].passed, now[0].passed, _score(before), _score(now))  # attempt 1
            pairs.append((sheet, pair))
    if drift and not allow_drift:
        verdict: Verdict = "not comparable"
    elif any(t.change == "regressed" for t in tasks):
        verdict = "not an improvement"
    elif any(t.change == "improved" for t in tasks):
        verdict = "improvement"
    else:
        verdict = "no change"
    return Comparison(
        verdict=verdict,
        base_label=base_label,
        base=base.pins,
        run=run.pins,
        drift=drift,
        drift_allowed=allow_drift and bool(drift),
        changed=changed_between(base.pins, run.pins),
        score_tolerance=score_tolerance,
        tasks=tasks,
        overall=paired_stats([p for _, p in pairs]),
        by_family=_group_stats([(s.family, p) for s, p in pairs]),
        by_tier=_group_stats([(s.tier, p) for s, p in pairs]),
        reliable=(_reliable(base), _reliable(run)),
    )

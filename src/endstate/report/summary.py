"""Summaries of task records: the headline, breakdowns and replicate statistics."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field, SerializeAsAny

from endstate.records import TaskRecord, attempt_order
from endstate.report.model_loss import ModelLoss, model_loss
from endstate.report.outcomes import section_summaries
from endstate.report.subtasks import SubtaskSummary, summarize_subtasks
from endstate.report.usage import UsageSummary, summarize_usage
from endstate.stats import bootstrap_mean, pass_hat_k, wilson_interval

RELIABILITY_REPLICATES = 5


class Cell(BaseModel):
    """One breakdown cell: tasks, full-credit count, mean score."""

    tasks: int
    full_credit: int
    mean: float


LEG_KINDS = ("read", "write")


class LegCell(BaseModel):
    """Errand legs of one kind (read or write) on first attempts: how many, how many correct."""

    legs: int = Field(
        description="Leg verdicts of this kind in headline records; those of an unmeasurable "
        "or blocked record count as not correct."
    )
    correct: int = Field(description="Legs graded correct (a set leg only at F1 = 1.0).")
    share: float | None = Field(description="correct / legs; None when there are no legs.")
    tasks_without_verdicts: int = Field(
        default=0,
        description="Errand tasks whose headline record holds no verdicts at all (unmeasurable "
        "or blocked before grading): their legs are unknown, so not counted in `legs`.",
    )


class Replicates(BaseModel):
    """Statistics over repeated attempts; never best-of-N."""

    attempts_per_task: dict[int, int] = Field(description="attempt count -> number of tasks")
    pass_at_1: float = Field(description="Mean over tasks of passes / attempts.")
    pass_hat_k: dict[int, float] = Field(description="Unbiased pass^k for each k with data.")
    reliable: int | None = Field(
        default=None, description="Tasks passing every one of >= 5 replicates; None if too few."
    )
    replicated_tasks: int = 0


class JudgeStats(BaseModel):
    """What the rubric judge did in a run: the facts its variance and failures are read from."""

    verdicts: int = Field(description="Rubric checks evaluated (graded or not).")
    graded: int
    split: int = Field(description="Graded verdicts whose k calls disagreed.")
    cached: int = Field(description="Verdicts replayed from the cache rather than judged afresh.")
    rejudged: int = Field(description="Verdicts judged again with fresh calls, cache bypassed.")
    flips: int = Field(description="Re-judged verdicts whose fresh majority differed.")
    ungraded_reasons: dict[str, int] = Field(
        default_factory=dict, description="Why rubric checks stayed ungraded, most common first."
    )

    @property
    def flip_rate(self) -> float | None:
        return self.flips / self.rejudged if self.rejudged else None


def judge_stats(records: Iterable[TaskRecord]) -> JudgeStats:
    rubric = [c for r in records for c in r.checks if c.type == "llm_judge"]
    graded = [c for c in rubric if c.outcome != "ungraded"]
    rejudged = [c for c in graded if c.flipped is not None]
    reasons = Counter(c.detail or "no reason recorded" for c in rubric if c.outcome == "ungraded")
    return JudgeStats(
        verdicts=len(rubric),
        graded=len(graded),
        split=sum(c.split for c in graded),
        cached=sum(c.cached for c in graded),
        rejudged=len(rejudged),
        flips=sum(bool(c.flipped) for c in rejudged),
        ungraded_reasons=dict(reasons.most_common()),
    )


class Summary(BaseModel):
    tasks: int
    passes: int
    pass_rate: float
    interval: tuple[float, float]
    mean_score: float
    mean_score_interval: tuple[float, float]
    unmeasurable: int
    blocked: int
    flagged: int
    by_family: dict[str, Cell]
    by_tier: dict[str, Cell]
    by_family_tier: dict[str, dict[str, Cell]]
    by_template: dict[str, Cell] = Field(
        default_factory=dict, description="Generated tasks only: one cell per template."
    )
    replicates: Replicates | None = None
    deterministic_passes: int | None = Field(
        default=None,
        description="Flagged tasks only matter here: headline tasks passing every deterministic "
        "check, rubric checks left aside. Secondary, never the headline; None when no task "
        "was flagged.",
    )
    judge: JudgeStats | None = Field(
        default=None, description="Over every attempt's rubric checks; None when none ran."
    )
    by_leg_kind: dict[str, LegCell] = Field(
        default_factory=dict,
        description="Errand legs of first attempts, keyed read and write; empty when no "
        "headline record has leg verdicts.",
    )
    by_template_leg_kind: dict[str, dict[str, LegCell]] = Field(
        default_factory=dict,
        description="Errand templates (archetypes): template -> read/write -> cell.",
    )
    sections: dict[str, SerializeAsAny[BaseModel]] = Field(
        default_factory=dict,
        description="What each system's outcome section summarised (report/outcomes.py), by "
        "section name; a section with no record of its own is absent.",
    )
    usage: UsageSummary | None = Field(
        default=None,
        description="Model usage and cost over every attempt; None when no attempt reported it.",
    )
    model_loss: ModelLoss | None = Field(
        default=None,
        description="Attempts lost to the agent's model endpoint (no call succeeded); None "
        "when there were none.",
    )
    subtasks: SubtaskSummary | None = Field(
        default=None,
        description="Checks passed / checks on first attempts, beside task success, overall "
        "and by family, tier and subtask category (report/subtasks.py); None: no verdicts.",
    )


def headline_records(records: Iterable[TaskRecord]) -> list[TaskRecord]:
    """The first attempt of each task: headline numbers are single-attempt, with no selection."""
    first: dict[str, TaskRecord] = {}
    for record in records:
        current = first.get(record.task_id)
        if current is None or attempt_order(record.attempt) < attempt_order(current.attempt):
            first[record.task_id] = record
    return [first[k] for k in sorted(first)]


def _cell(records: Sequence[TaskRecord]) -> Cell:
    return Cell(
        tasks=len(records),
        full_credit=sum(r.passed for r in records),
        mean=sum(r.score for r in records) / len(records) if records else 0.0,
    )


def _replicates(records: Sequence[TaskRecord]) -> Replicates | None:
    per_task: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in records:
        per_task[r.task_id].append(r)
    outcomes = [(len(rs), sum(r.passed for r in rs)) for rs in per_task.values()]
    if not outcomes or max(n for n, _ in outcomes) < 2:
        return None
    counts: dict[int, int] = defaultdict(int)
    for n, _ in outcomes:
        counts[n] += 1
    max_k = max(n for n, _ in outcomes)
    enough = [(n, c) for n, c in outcomes if n >= RELIABILITY_REPLICATES]
    return Replicates(
        attempts_per_task=dict(sorted(counts.items())),
        pass_at_1=sum(c / n for n, c in outcomes) / len(outcomes),
        pass_hat_k={k: pass_hat_k(outcomes, k) for k in range(1, max_k + 1)},
        reliable=sum(c == n for n, c in enough) if enough else None,
        replicated_tasks=sum(n >= 2 for n, _ in outcomes),
    )


def summarize(records: Sequence[TaskRecord]) -> Summary:
    head = headline_records(records)
    n = len(head)
    passes = sum(r.passed for r in head)
    families: dict[str, list[TaskRecord]] = defaultdict(list)
    tiers: dict[str, list[TaskRecord]] = defaultdict(list)
    grid: dict[str, dict[str, list[TaskRecord]]] = defaultdict(lambda: defaultdict(list))
    for r in head:
        families[r.family].append(r)
        tiers[r.tier].append(r)
        grid[r.family][r.tier].append(r)
    templates: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in head:
        if r.template:
            templates[r.template].append(r)
    scores = [r.score for r in head]
    return Summary(
        tasks=n,
        passes=passes,
        pass_rate=passes / n if n else 0.0,
        interval=wilson_interval(passes, n),
        mean_score=sum(scores) / n if n else 0.0,
        mean_score_interval=bootstrap_mean(scores),
        unmeasurable=sum(r.status == "unmeasurable" for r in head),
        blocked=sum(r.status == "blocked" for r in head),
        flagged=sum(r.flagged for r in head),
        by_family={k: _cell(v) for k, v in sorted(families.items())},
        by_tier={k: _cell(v) for k, v in sorted(tiers.items(), key=lambda kv: _tier_order(kv[0]))},
        by_family_tier={
            f: {t: _cell(rs) for t, rs in sorted(row.items(), key=lambda kv: _tier_order(kv[0]))}
            for f, row in sorted(grid.items())
        },
        by_template={k: _cell(v) for k, v in sorted(templates.items())},
        replicates=_replicates(records),
        deterministic_passes=(
            sum(_deterministic_pass(r) for r in head) if any(r.flagged for r in head) else None
        ),
        judge=stats if (stats := judge_stats(records)).verdicts else None,
        by_leg_kind=_leg_cells(errands) if (errands := _errand_records(head)) else {},
        by_template_leg_kind=_template_leg_cells(errands),
        sections=section_summaries(head, records),
        usage=summarize_usage(records, {r.tier: _tier_order(r.tier) for r in records}),
        model_loss=model_loss(records, head),
        subtasks=summarize_subtasks(head, sorted({r.tier for r in head}, key=_tier_order)),
    )


def _has_legs(record: TaskRecord) -> bool:
    return any(c.leg_kind is not None for c in record.checks)


def _errand_records(head: Sequence[TaskRecord]) -> list[TaskRecord]:
    """Headline records with leg verdicts, and those without any verdict in the same families
    (an errand lost before grading): empty when no headline record has leg verdicts."""
    families = {r.family for r in head if _has_legs(r)}
    return [r for r in head if _has_legs(r) or (not r.checks and r.family in families)]


def _leg_cells(records: Sequence[TaskRecord]) -> dict[str, LegCell]:
    legs: Counter[str] = Counter()
    correct: Counter[str] = Counter()
    for r in records:
        graded = r.status not in ("unmeasurable", "blocked")
        for c in r.checks:
            if c.leg_kind is not None:
                legs[c.leg_kind] += 1
                correct[c.leg_kind] += graded and c.outcome == "pass"
    without = sum(not r.checks for r in records)
    return {
        kind: LegCell(
            legs=legs[kind],
            correct=correct[kind],
            share=correct[kind] / legs[kind] if legs[kind] else None,
            tasks_without_verdicts=without,
        )
        for kind in LEG_KINDS
    }


def _template_leg_cells(records: Sequence[TaskRecord]) -> dict[str, dict[str, LegCell]]:
    templates: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in records:
        if r.template:
            templates[r.template].append(r)
    return {k: _leg_cells(v) for k, v in sorted(templates.items())}


def _deterministic_pass(record: TaskRecord) -> bool:
    if record.status in ("unmeasurable", "blocked"):
        return False
    deterministic = [c for c in record.checks if c.type != "llm_judge"]
    return bool(deterministic) and all(c.outcome == "pass" for c in deterministic)


def tier_order(tier: str) -> tuple[int, str]:
    """Tiers in difficulty order (easy, medium, hard), any others after by name."""
    return _tier_order(tier)


def _tier_order(tier: str) -> tuple[int, str]:
    order = {"easy": 0, "medium": 1, "hard": 2}
    return (order.get(tier, 3), tier)

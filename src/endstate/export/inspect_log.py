"""A run as an Inspect AI eval log, built from inspect_ai's own log models.

Using the library's models (not hand-written JSON) means `read_eval_log` and `inspect view`
accept the file by construction, and a format change in inspect_ai fails here, loudly.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalSampleLimit,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.scorer import Score
from pydantic import ValidationError

from endstate.errors import EndstateError
from endstate.export.output import staged
from endstate.export.source import (
    ExportedRun,
    attempt_number,
    check_outcomes,
    judge_model,
    pins,
    subtask_counts,
)
from endstate.records import TaskRecord
from endstate.report.summary import Summary
from endstate.runs.store import MANIFEST, TRACES

SCORER = "endstate"
TARGET = "full credit: every check passes on the recorded end state (score 1.0)"
LogFormat = Literal["eval", "json"]


def log_format(out: Path) -> LogFormat:
    """Inspect reads both of its formats; the file name says which one the user wants."""
    if out.suffix == ".eval":
        return "eval"
    if out.suffix == ".json":
        return "json"
    raise EndstateError(f"{out}: an Inspect log must end in .eval or .json")


def write_inspect(run: ExportedRun, out: Path) -> None:
    """Write the log next to `out` and move it into place: no half-written log is left."""
    fmt = log_format(out)
    try:
        log = build_log(run)
    except ValidationError as exc:  # a run holding a value Inspect's schema refuses
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise EndstateError(
            f"{run.root}: cannot express this run as an Inspect log ({where}: {first['msg']})"
        ) from None
    with staged(out) as tmp:
        write_eval_log(log, str(tmp), format=fmt)


def build_log(run: ExportedRun) -> EvalLog:
    """The whole log: spec and pins, one sample per attempt, the headline as results."""
    error = _interruption(run)
    return EvalLog(
        status="error" if error else "success",
        eval=_spec(run),
        results=_results(run),
        stats=EvalStats(
            started_at=_created(run),
            completed_at=_when(run.manifest.finished_at) or "",
            model_usage=_usage(run.manifest.agent.spec, run.records),
        ),
        error=error,
        samples=[_sample(run, r) for r in run.records],
    )


def _interruption(run: ExportedRun) -> EvalError | None:
    if not run.interrupted:
        return None
    total = len(run.records)
    if run.missing:
        message = (
            f"run interrupted: {total - run.missing} of {total} attempts recorded; "
            "the missing ones count as unmeasurable (score 0)"
        )
    else:
        message = "run interrupted: every attempt was recorded but the run never finished"
    return EvalError(message=message, traceback="", traceback_ansi="")


def _spec(run: ExportedRun) -> EvalSpec:
    m = run.manifest
    weakenings = run.weakenings
    metadata: dict[str, Any] = {
        **pins(m),
        "weakenings": [w.model_dump() for w in weakenings],
        "disclosure": {item.key: item.text for item in run.disclosure},
    }
    return EvalSpec(
        eval_id=m.run_id,
        run_id=m.run_id,
        created=_created(run),
        task=m.corpus.name,
        task_id=f"{m.corpus.name}@{m.corpus.tree_hash[:16]}",
        solver=m.agent.kind,
        solver_args=dict(m.agent.config),
        tags=["endstate", m.mode, *(["boundary-weakened"] if weakenings else [])],
        dataset=EvalDataset(
            name=m.corpus.name,
            location=m.corpus.root,
            samples=len(m.tasks),
            sample_ids=list(m.tasks),
        ),
        model=m.agent.spec,
        config=EvalConfig(
            epochs=m.limits.attempts,
            max_samples=m.limits.workers,
            time_limit=round(m.limits.time_limit),
        ),
        packages={"endstate": m.build.version},
        metadata=metadata,
    )


def _results(run: ExportedRun) -> EvalResults:
    s = run.summary
    headline = "attempt 1 of each task; unmeasurable and blocked count as zero"
    return EvalResults(
        total_samples=len(run.records),
        completed_samples=len(run.records) - run.missing,
        scores=[
            EvalScore(
                name=SCORER,
                scorer=SCORER,
                scored_samples=s.tasks,
                unscored_samples=0,
                metrics={
                    "accuracy": EvalMetric(
                        name="accuracy",
                        value=s.pass_rate,
                        metadata={
                            "meaning": "full-credit pass rate (score 1.0)",
                            "passes": s.passes,
                            "tasks": s.tasks,
                            "wilson_95": list(s.interval),
                        },
                    ),
                    **_subtask_metric(s),
                    "mean": EvalMetric(
                        name="mean",
                        value=s.mean_score,
                        metadata={
                            "meaning": "mean score (partial credit)",
                            "bootstrap_95": list(s.mean_score_interval),
                        },
                    ),
                },
                metadata={"headline": headline},
            )
        ],
        metadata={"summary": s.model_dump(mode="json")},
    )


def _subtask_metric(s: Summary) -> dict[str, EvalMetric]:
    """Subtask success beside the full-credit rate; absent when no attempt has verdicts."""
    st = s.subtasks
    if st is None or st.overall.share is None:
        return {}
    cell = st.overall
    return {
        "subtask_success": EvalMetric(
            name="subtask_success",
            value=cell.share,
            metadata={
                "meaning": "checks passed / checks, pooled over first attempts",
                "passed": cell.passed,
                "checks": cell.checks,
                "cluster_bootstrap_95": list(cell.interval or ()),
                "resamples": st.resamples,
                "seed": st.seed,
                "by_category": {
                    k: {"passed": c.passed, "checks": c.checks, "share": c.share}
                    for k, c in st.by_category.items()
                },
            },
        )
    }


def _sample(run: ExportedRun, record: TaskRecord) -> EvalSample:
    spec = run.manifest.agent.spec
    number = attempt_number(record.attempt)
    facts = record.facts
    instruction = run.instructions.get(record.task_id)
    text = instruction or f"Task {record.task_id} ({record.family}): instruction not available"
    messages: list[ChatMessage] = [ChatMessageUser(content=text)]
    output = ModelOutput(model=spec)
    if facts and facts.final_message:
        messages.append(ChatMessageAssistant(content=facts.final_message, model=spec))
        output = ModelOutput.from_content(model=spec, content=facts.final_message)
    limit = None
    if facts and facts.claim == "timeout":
        limit = EvalSampleLimit(type="time", limit=run.manifest.limits.time_limit)
    return EvalSample(
        # Scheduled attempts are "1".."N": the task is the sample, the attempt its epoch.
        id=record.task_id if number is not None else f"{record.task_id}#{record.attempt}",
        epoch=number if number is not None else 1,
        input=text,
        target=TARGET,
        messages=messages,
        output=output,
        scores={SCORER: _score(run, record)},
        metadata=_sample_metadata(run, record, instruction is not None),
        model_usage=_usage(spec, [record]),
        started_at=_when(facts.started_at) if facts else None,
        completed_at=_completed_at(record),
        total_time=round(facts.attempt_seconds + facts.scoring_seconds, 3) if facts else None,
        working_time=facts.attempt_seconds if facts else None,
        uuid=f"{run.manifest.run_id}/{record.task_id}/{record.attempt}",
        limit=limit,
    )


def _score(run: ExportedRun, record: TaskRecord) -> Score:
    return Score(
        value=record.score,
        answer=record.facts.claim if record.facts else None,
        explanation=explain(record),
        metadata={
            "status": record.status,
            "passed": record.passed,
            "earned": record.earned,
            "weight": record.weight,
            "ungraded_points": record.ungraded_points,
            "flagged": record.flagged,
            "judge_model": judge_model(run, record),
            "checks": check_outcomes(record),
            "subtasks": subtask_counts(record),
        },
    )


def explain(record: TaskRecord) -> str:
    """One readable paragraph: the status, the points, and every check that did not pass."""
    if record.status in ("unmeasurable", "blocked"):
        return f"{record.status}: {record.error or 'no reason recorded'} (scored 0)"
    head = f"{record.status}: {record.earned:g} of {record.weight:g} points"
    if record.ungraded_points:
        head += f"; {record.ungraded_points:g} ungraded (flagged: cannot pass)"
    lines = [head]
    for check in record.checks:
        if check.outcome != "pass":
            why = f" ({check.detail})" if check.detail else ""
            lines.append(f"- {check.outcome}: {check.description or check.type}{why}")
    return "\n".join(lines)


def _sample_metadata(run: ExportedRun, record: TaskRecord, has_instruction: bool) -> dict[str, Any]:
    facts = record.facts
    trace = run.root / TRACES / record.task_id / record.attempt
    return {
        "task_id": record.task_id,
        "attempt": record.attempt,
        "family": record.family,
        "tier": record.tier,
        "scenario_label": record.scenario_label,
        "template": record.template,
        "status": record.status,
        "false_success": record.false_success,
        "state_source": record.state_source,
        "error": record.error,
        "instruction_from_corpus": has_instruction,
        "trace_dir": f"{TRACES}/{record.task_id}/{record.attempt}" if trace.is_dir() else None,
        "facts": facts.model_dump(mode="json") if facts else None,
        "weakenings": run.attempt_weakenings(record),
    }


def _when(text: str | None) -> str | None:
    """A recorded time as Inspect's UTC form; None for one that is missing or unreadable."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:  # the harness records UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def _created(run: ExportedRun) -> str:
    """When the run started; the manifest's own file time if the recorded one is unreadable."""
    recorded = _when(run.manifest.created_at)
    if recorded:
        return recorded
    mtime = (run.root / MANIFEST).stat().st_mtime
    return datetime.fromtimestamp(mtime, UTC).isoformat()


def _completed_at(record: TaskRecord) -> str | None:
    facts = record.facts
    began = _when(facts.started_at) if facts else None
    if facts is None or began is None:
        return None
    end = datetime.fromisoformat(began) + timedelta(seconds=facts.attempt_seconds)
    return end.isoformat()


def _usage(model: str, records: list[TaskRecord]) -> dict[str, ModelUsage]:
    """Tokens (and cost, where priced) the agent reported, under its spec; none when it
    reported none."""
    prompt = completion = 0
    cost: float | None = None
    reported = False
    for record in records:
        facts = record.facts
        if facts and (facts.prompt_tokens is not None or facts.completion_tokens is not None):
            reported = True
            prompt += facts.prompt_tokens or 0
            completion += facts.completion_tokens or 0
        if facts and facts.cost_usd is not None:
            cost = (cost or 0.0) + facts.cost_usd
    if not reported:
        return {}
    return {
        model: ModelUsage(
            input_tokens=prompt,
            output_tokens=completion,
            total_tokens=prompt + completion,
            total_cost=cost,
        )
    }

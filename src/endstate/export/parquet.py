"""A run as a Parquet table: one row per scheduled attempt, for dataframes and SQL engines.

The schema is declared, not inferred, so a column keeps its type even when every value in a
run is null (no tokens, no judge), and runs concatenate without type conflicts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from endstate.export.deps import require
from endstate.export.output import staged
from endstate.export.source import (
    ExportedRun,
    attempt_number,
    check_outcomes,
    judge_model,
    pins,
    subtask_counts,
    tokens,
)
from endstate.records import AttemptFacts, TaskRecord

# Column name -> Arrow type name (see `_arrow_type`); the order is the table's.
COLUMNS: dict[str, str] = {
    "run_id": "string",
    "task_id": "string",
    "attempt": "int64",
    "attempt_label": "string",
    "family": "string",
    "tier": "string",
    "scenario_label": "string",
    "template": "string",
    "status": "string",
    "passed": "bool",
    "score": "float64",
    "earned": "float64",
    "weight": "float64",
    "ungraded_points": "float64",
    "flagged": "bool",
    "false_success": "bool",
    "claim": "string",
    "final_message": "string",
    "agent_error": "string",
    "steps": "int64",
    "prompt_tokens": "int64",
    "completion_tokens": "int64",
    "tokens": "int64",
    "images": "int64",
    "model_calls": "int64",
    "model_retries": "int64",
    "model_failed_calls": "int64",
    "model_failure": "bool",
    "cost_usd": "float64",
    "attempt_seconds": "float64",
    "scoring_seconds": "float64",
    "started_at": "string",
    "episode_id": "string",
    "state_source": "string",
    "error": "string",
    "judge_model": "string",
    "corpus": "string",
    "corpus_hash": "string",
    "build_version": "string",
    "build_revision": "string",
    "build_dirty": "bool",
    "agent_spec": "string",
    "environment_fingerprint": "string",
    "seed": "int64",
    "weakenings": "list<string>",
    "checks": "string",
    "checks_passed": "int64",
    "checks_total": "int64",
    "subtask_categories": "string",
}


def rows(run: ExportedRun) -> list[dict[str, Any]]:
    """The table as plain rows: unrecorded attempts included, as the report counts them."""
    return [_row(run, r) for r in run.records]


_USAGE = (
    "images",
    "model_calls",
    "model_retries",
    "model_failed_calls",
    "model_failure",
    "cost_usd",
)


def _usage(facts: AttemptFacts | None) -> dict[str, Any]:
    """What the model calls cost, where the agent reported it (None otherwise)."""
    return {name: getattr(facts, name) if facts else None for name in _USAGE}


def _row(run: ExportedRun, record: TaskRecord) -> dict[str, Any]:
    m = run.manifest
    facts = record.facts
    subtasks = subtask_counts(record)
    return {
        "run_id": m.run_id,
        "task_id": record.task_id,
        "attempt": attempt_number(record.attempt),
        "attempt_label": record.attempt,
        "family": record.family,
        "tier": record.tier,
        "scenario_label": record.scenario_label,
        "template": record.template,
        "status": record.status,
        "passed": record.passed,
        "score": record.score,
        "earned": record.earned,
        "weight": record.weight,
        "ungraded_points": record.ungraded_points,
        "flagged": record.flagged,
        "false_success": record.false_success,
        "claim": facts.claim if facts else None,
        "final_message": facts.final_message if facts else None,
        "agent_error": facts.agent_error if facts else None,
        "steps": facts.steps if facts else None,
        "prompt_tokens": facts.prompt_tokens if facts else None,
        "completion_tokens": facts.completion_tokens if facts else None,
        "tokens": tokens(record),
        **_usage(facts),
        "attempt_seconds": facts.attempt_seconds if facts else None,
        "scoring_seconds": facts.scoring_seconds if facts else None,
        "started_at": facts.started_at if facts else None,
        "episode_id": facts.episode_id if facts else None,
        "state_source": record.state_source,
        "error": record.error,
        "judge_model": judge_model(run, record),
        "corpus": m.corpus.name,
        "corpus_hash": m.corpus.tree_hash,
        "build_version": m.build.version,
        "build_revision": m.build.revision,
        "build_dirty": m.build.dirty,
        "agent_spec": m.agent.spec,
        "environment_fingerprint": m.environment.fingerprint,
        "seed": m.seed,
        "weakenings": run.attempt_weakenings(record),
        "checks": json.dumps(check_outcomes(record), ensure_ascii=False),
        "checks_passed": subtasks["passed"],
        "checks_total": subtasks["checks"],
        "subtask_categories": json.dumps(subtasks["by_category"], ensure_ascii=False),
    }


def write_parquet(run: ExportedRun, out: Path) -> None:
    """Write the table with the run's pins and headline in the file's own metadata."""
    pa = require("pyarrow", "pyarrow", "--format parquet")
    pq = require("pyarrow.parquet", "pyarrow", "--format parquet")
    schema = pa.schema(
        [pa.field(name, _arrow_type(pa, kind)) for name, kind in COLUMNS.items()],
        metadata={
            "endstate.pins": json.dumps(pins(run.manifest), ensure_ascii=False),
            "endstate.summary": run.summary.model_dump_json(),
            "endstate.interrupted": json.dumps(run.interrupted),
            "endstate.weakenings": json.dumps(
                [w.model_dump() for w in run.weakenings], ensure_ascii=False
            ),
        },
    )
    table = pa.Table.from_pylist(rows(run), schema=schema)
    with staged(out) as tmp:
        pq.write_table(table, str(tmp))


def _arrow_type(pa: Any, kind: str) -> Any:
    if kind == "list<string>":
        return pa.list_(pa.string())
    types = {"string": pa.string, "int64": pa.int64, "float64": pa.float64, "bool": pa.bool_}
    return types[kind]()

"""A run directory read for export: the same records and headline its report is built from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from endstate.boundary import Weakening, boundary_weakenings
from endstate.corpus.loader import load_corpus
from endstate.errors import EndstateError
from endstate.manifest import DisclosureItem, Manifest
from endstate.records import NOT_RECORDED, CheckVerdict, TaskRecord, attempt_order
from endstate.report.subtasks import counted
from endstate.report.summary import Summary
from endstate.runs.session import render
from endstate.runs.store import RunStore
from endstate.subtask_categories import SUBTASK_CATEGORIES, subtask_category_of


@dataclass(frozen=True)
class ExportedRun:
    """Everything an exporter may show; nothing is read from the run twice."""

    root: Path
    manifest: Manifest
    records: list[TaskRecord]  # one per scheduled attempt, in schedule order
    summary: Summary
    disclosure: list[DisclosureItem]
    instructions: dict[str, str]  # task id -> instruction the agent received, when known

    @property
    def missing(self) -> int:
        """Scheduled attempts with no record (counted as unmeasurable, never dropped)."""
        return sum(r.error == NOT_RECORDED for r in self.records)

    @property
    def weakenings(self) -> list[Weakening]:
        """The run's boundary weakenings, as its report states them."""
        return boundary_weakenings(self.manifest, self.records)

    def attempt_weakenings(self, record: TaskRecord) -> list[str]:
        """The ids of the weakenings that applied to one attempt."""
        return [w.id for w in boundary_weakenings(self.manifest, [record])]

    @property
    def interrupted(self) -> bool:
        """The run stopped before finishing: never completed, or attempts left unrecorded."""
        return self.manifest.finished_at is None or self.missing > 0


def load_run(root: Path) -> ExportedRun:
    """Read a run through `render`, so an export can never disagree with the run's report.

    Unrecorded attempts are included as unmeasurable, exactly as the report counts them."""
    if not root.exists():
        raise EndstateError(f"{root}: run directory not found")
    if not root.is_dir():
        raise EndstateError(f"{root}: not a directory (expected a run directory)")
    store = RunStore(root)
    manifest = store.read_manifest()
    records, summary, disclosure, _ = render(store, manifest)
    order = {task: i for i, task in enumerate(manifest.tasks)}
    records.sort(key=lambda r: (order.get(r.task_id, len(order)), *attempt_order(r.attempt)))
    return ExportedRun(root, manifest, records, summary, disclosure.items, instructions(manifest))


def instructions(manifest: Manifest) -> dict[str, str]:
    """The instruction each task gave the agent, read from the pinned corpus.

    Only a corpus whose tree hash still equals the pin is trusted: an edited or vanished
    corpus yields nothing, rather than text the agent never saw."""
    try:
        corpus = load_corpus(manifest.corpus.root)
    except (EndstateError, OSError):
        return {}
    if corpus.tree_hash != manifest.corpus.tree_hash:
        return {}
    wanted = set(manifest.tasks)
    return {t.id: t.public.instruction for t in corpus.tasks if t.id in wanted}


def attempt_number(label: str) -> int | None:
    """The attempt as a number; the store only schedules "1".."N", but a label is text."""
    return int(label) if label.isascii() and label.isdigit() else None


def check_outcomes(record: TaskRecord) -> list[dict[str, object]]:
    """Per-check outcomes as plain data: what each check was worth and what it earned."""
    return [_check(c) for c in record.checks]


def _check(check: CheckVerdict) -> dict[str, object]:
    data: dict[str, object] = check.model_dump(
        mode="json",
        include={
            "index",
            "type",
            "description",
            "category",
            "points",
            "earned",
            "outcome",
            "detail",
            "votes",
        },
    )
    data["subtask_category"] = subtask_category_of(check)
    return data


def subtask_counts(record: TaskRecord) -> dict[str, object]:
    """Checks passed and counted on this attempt, overall and by subtask category, counted
    as the report counts subtask success (report/subtasks.py)."""
    kept = counted(record)
    by_category: dict[str, dict[str, int]] = {}
    for check, ok in kept:
        category = subtask_category_of(check)
        if category is not None:
            cell = by_category.setdefault(category, {"passed": 0, "checks": 0})
            cell["passed"] += ok
            cell["checks"] += 1
    return {
        "passed": sum(ok for _, ok in kept),
        "checks": len(kept),
        "ungraded": sum(c.outcome == "ungraded" for c in record.checks),
        "by_category": {k: by_category[k] for k in SUBTASK_CATEGORIES if k in by_category},
    }


def judge_model(run: ExportedRun, record: TaskRecord) -> str | None:
    """The judge model that graded this attempt's rubric checks, if a judge was configured."""
    judge = record.judge or run.manifest.judge
    return judge.model if judge else None


def tokens(record: TaskRecord) -> int | None:
    """Prompt plus completion tokens, when the agent reported any."""
    facts = record.facts
    if facts is None or (facts.prompt_tokens is None and facts.completion_tokens is None):
        return None
    return (facts.prompt_tokens or 0) + (facts.completion_tokens or 0)


def pins(manifest: Manifest) -> dict[str, object]:
    """The run's pins as plain data: what a reader needs to compare this run with another.

    Per-file corpus hashes are left out: the tree hash pins them all, and the list is long."""
    return {
        "run_id": manifest.run_id,
        "mode": manifest.mode,
        "created_at": manifest.created_at,
        "finished_at": manifest.finished_at,
        "resumed_at": manifest.resumed_at,
        "corpus": manifest.corpus.model_dump(mode="json", exclude={"files"}),
        "corpus_tree_hash": manifest.corpus.tree_hash,
        "selection": manifest.selection,
        "build": manifest.build.model_dump(mode="json"),
        "agent": manifest.agent.model_dump(mode="json"),
        "judge": manifest.judge.model_dump(mode="json") if manifest.judge else None,
        "environment": manifest.environment.model_dump(mode="json"),
        "environment_fingerprint": manifest.environment.fingerprint,
        "limits": manifest.limits.model_dump(mode="json"),
        "seed": manifest.seed,
        "isolation": manifest.isolation.model_dump(mode="json") if manifest.isolation else None,
        "firewall": manifest.firewall.model_dump(mode="json"),
    }

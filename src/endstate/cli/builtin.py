"""`endstate corpus generate` and `endstate corpus validate`, as a sub-app to mount."""

from __future__ import annotations

import asyncio
import fnmatch
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from endstate.builtin import BUILTIN_COUNT, BUILTIN_SEED, named_corpus
from endstate.builtin.discrimination import by_template
from endstate.builtin.errands import ERRANDS_COUNT, ERRANDS_SEED
from endstate.builtin.errands.generator import generate_errand_corpus
from endstate.builtin.generator import generate_corpus
from endstate.builtin.validation import validate_tasks
from endstate.builtin.validation_results import TaskValidation
from endstate.cli.console import err, mark, print_reasons
from endstate.cli.scheduling import validate_case_tasks
from endstate.corpus import scheduling_cases
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import Task
from endstate.errors import EndstateError

corpus_extra_app = typer.Typer(
    help="Generate task corpora for the embedded environments and validate them.",
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help: no type tags such as <bool> or <list[str]>
)
out = Console(width=132, markup=False)  # the table stays readable when piped


@corpus_extra_app.command("generate")
def generate_cmd(
    out_dir: Annotated[Path, typer.Option("--out", help="Directory to write the corpus into.")],
    seed: Annotated[
        int, typer.Option("--seed", help="Corpus seed; the world is generated from it too.")
    ] = BUILTIN_SEED,
    count: Annotated[int, typer.Option("--count", help="Number of tasks.")] = BUILTIN_COUNT,
    name: Annotated[str | None, typer.Option("--name", help="Corpus name in the lock.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace a non-empty --out.")] = False,
    template: Annotated[
        list[str] | None,
        typer.Option(
            "--template",
            help="Only this task template (repeatable); --count is spread evenly over them.",
        ),
    ] = None,
) -> None:
    """A fresh world from --seed and --count tasks over it, written under family folders."""
    lock = generate_corpus(seed, count, out_dir, name=name, force=force, only=template or ())
    tasks = len(lock.files)
    out.print(
        f"wrote {tasks} tasks to {out_dir} (world seed {seed})\n"
        f"tree sha256 {lock.tree_hash}\n"
        f"run them with: endstate run --corpus {out_dir} --world-seed {seed} ...",
        highlight=False,
    )


@corpus_extra_app.command("errands")
def errands_cmd(
    out_dir: Annotated[Path, typer.Option("--out", help="Directory to write the corpus into.")],
    seed: Annotated[
        int, typer.Option("--seed", help="Corpus seed; the world and its patients come from it.")
    ] = ERRANDS_SEED,
    count: Annotated[int, typer.Option("--count", help="Number of errands.")] = ERRANDS_COUNT,
    name: Annotated[str | None, typer.Option("--name", help="Corpus name in the lock.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace a non-empty --out.")] = False,
    shape: Annotated[
        str,
        typer.Option(
            "--shape",
            help="mix: --count errands spread over the archetypes; card: the Personal Health "
            "Arena card's shape (100 episodes, two per patient, 398 legs; --count unused).",
        ),
    ] = "mix",
) -> None:
    """Patient errands (3-6 legs each) over the patient portal of the world of --seed."""
    lock = generate_errand_corpus(seed, count, out_dir, name=name, force=force, shape=shape)
    out.print(
        f"wrote {len(lock.files)} errands to {out_dir} (world seed {seed})\n"
        f"tree sha256 {lock.tree_hash}\n"
        f"run them with: endstate run --corpus {out_dir} --world-seed {seed} ...",
        highlight=False,
    )


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _discrimination_table(results: list[TaskValidation]) -> Table:
    """Per template: the reference's and the null attempt's share of the deterministic points,
    and how many mutants were caught."""
    table = Table(title="Discrimination by template", title_justify="left")
    for col in ("template", "tier", "tasks", "ref score", "null score", "gap", "mutants caught",
                "checks exercised"):  # fmt: skip
        table.add_column(col, justify="left" if col == "template" else "right")
    for row in by_template(results):
        table.add_row(
            row.template_id,
            row.tier,
            str(row.tasks),
            _share(row.reference_score),
            _share(row.null_score),
            _share(row.gap),
            f"{row.caught}/{row.mutants}"
            + (f" +{row.not_replayed} not replayed" if row.not_replayed else ""),
            f"{row.exercised}/{row.checks}",
        )
    return table


def _table(results: list[TaskValidation]) -> Table:
    table = Table(title="Validation", title_justify="left")
    for col in ("task", "template", "tier", "ref", "null", "mutants", "can fail", "key", "result"):
        table.add_column(col, justify="left" if col in ("task", "template") else "right")
    for v in results:
        table.add_row(
            v.task_id,
            v.template_id,
            v.tier,
            mark(v.solvable),
            mark(v.discriminating, "fails", "PASSES"),
            f"{v.caught}/{len(v.mutations)}"
            + (f" +{len(v.not_replayed)}" if v.not_replayed else ""),
            f"{len(v.exercised)}/{v.checks}",
            mark(not v.audit, "agrees", "DIFFERS") if v.audited else ("none" if v.unkeyed else "—"),
            mark(v.ok, "ok", "FAIL"),
        )
    return table


@corpus_extra_app.command("validate")
def validate_cmd(
    path: Annotated[Path, typer.Argument(help="A corpus of native tasks.")],
    workers: Annotated[int, typer.Option("--workers", min=1, help="Parallel attempts.")] = 2,
    tasks: Annotated[
        str | None, typer.Option("--tasks", help="Only task ids matching these globs (a,b).")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the findings as JSON here.")
    ] = None,
    per_template: Annotated[
        int | None,
        typer.Option("--per-template", min=1, help="Only the first N tasks of each template."),
    ] = None,
    replay_sample: Annotated[
        int | None,
        typer.Option(
            "--replay-sample",
            min=0,
            help="Replay mutants for only the first N tasks of each template (the others "
            "still run their reference, null attempt and mutants scored without replay).",
        ),
    ] = None,
) -> None:
    """Reference earns every deterministic point, null fails, every mutation fails a check
    (for scheduling cases: every forbidden effect's violation is caught)."""
    corpus = load_corpus(named_corpus(path))
    chosen = corpus.tasks
    if tasks:
        globs = [g.strip() for g in tasks.split(",")]
        chosen = [t for t in chosen if any(fnmatch.fnmatchcase(t.id, g) for g in globs)]
        if not chosen:
            raise EndstateError(f"--tasks {tasks!r}: matches no task in {path}")
    if per_template is not None:
        taken: dict[str, int] = {}
        sample = []
        for task in chosen:
            template = _template(task)
            if taken.get(template, 0) < per_template:
                taken[template] = taken.get(template, 0) + 1
                sample.append(task)
        chosen = sample
    if all(t.format == scheduling_cases.FORMAT for t in chosen):
        if not validate_case_tasks(chosen, workers, out):
            raise typer.Exit(1)
        return
    began = time.monotonic()
    done = 0

    def progress(v: TaskValidation) -> None:
        nonlocal done
        done += 1
        state = "ok" if v.ok else "FAIL"
        err.print(f"[{done}/{len(chosen)}] {v.task_id} {state}", highlight=False)

    replay = None if replay_sample is None else _first_of_each_template(chosen, replay_sample)
    results = asyncio.run(validate_tasks(chosen, workers, progress, replay))
    out.print(_table(results))
    out.print(_discrimination_table(results))
    failed = [v for v in results if not v.ok]
    print_reasons(out, [(v.task_id, v.reasons()) for v in failed])
    total_m = sum(len(v.mutations) for v in results)
    skipped = sum(len(v.not_replayed) for v in results)
    caught = sum(v.caught for v in results)
    ungraded = sum(len(v.reference.ungraded) for v in results if v.reference)
    audited = [v for v in results if v.audited]
    unkeyed = sum(v.unkeyed for v in results)
    out.print(
        f"{len(results)} tasks in {time.monotonic() - began:.0f}s with {workers} worker(s): "
        f"solvable {sum(v.solvable for v in results)}/{len(results)}, "
        f"discriminating {sum(v.discriminating for v in results)}/{len(results)}, "
        f"mutation coverage {caught}/{total_m}"
        f"{f' ({caught / total_m:.0%})' if total_m else ''}"
        f"{f' ({skipped} not replayed, on request)' if skipped else ''}, "
        f"answer keys confirmed {sum(not v.audit for v in audited)}/{len(audited)}"
        f"{f' ({unkeyed} without a key)' if unkeyed else ''}; "
        f"{ungraded} rubric check(s) ungraded (no judge); "
        f"{len(failed)} task(s) failed",
        highlight=False,
    )
    if json_out is not None:
        json_out.write_text(json.dumps([_dump(v) for v in results], indent=2) + "\n")
    if failed:
        raise typer.Exit(1)


def _template(task: Task) -> str:
    """The template a task was drawn from (a scheduling case keeps it in its metadata)."""
    return str(task.grading.extra.get("template_id") or task.grading.metadata.get("template", ""))


def _first_of_each_template(tasks: list[Task], n: int) -> Callable[[Task], bool]:
    taken: dict[str, int] = {}
    chosen: set[str] = set()
    for task in tasks:
        template = str(task.grading.extra.get("template_id", ""))
        if taken.get(template, 0) < n:
            taken[template] = taken.get(template, 0) + 1
            chosen.add(task.id)
    return lambda task: task.id in chosen


def _dump(v: TaskValidation) -> dict[str, object]:
    return {
        "task_id": v.task_id,
        "template_id": v.template_id,
        "family": v.family,
        "tier": v.tier,
        "ok": v.ok,
        "solvable": v.solvable,
        "discriminating": v.discriminating,
        "reference_score": v.reference.score if v.reference else None,
        "null_score": v.null.score if v.null else None,
        "mutations": {m.id: m.caught for m in v.mutations},
        "checks_that_can_fail": sorted(v.exercised),
        "reasons": v.reasons(),
        "confirmed_after_retry": v.retried,
        "not_replayed": v.not_replayed,
        "audit": v.audit,
    }

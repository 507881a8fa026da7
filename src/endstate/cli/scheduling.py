"""`endstate corpus validate` for scheduling cases, and `endstate corpus reference-runs`."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from endstate.builtin import named_corpus
from endstate.builtin.scheduling.generator import (
    PER_FAMILY,
    SCHEDULING_SEED,
    generate_scheduling_corpus,
)
from endstate.builtin.scheduling.validation import CaseValidation, validate_cases
from endstate.cli.console import err, mark, print_reasons
from endstate.corpus import scheduling_cases
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import Task
from endstate.errors import EndstateError

scheduling_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None)


def case_table(results: list[CaseValidation]) -> Table:
    table = Table(title="Validation (scheduling cases)", title_justify="left")
    for col in ("case", "family", "reference", "null", "forbidden caught", "result"):
        table.add_column(col, justify="left" if col in ("case", "family") else "right")
    for v in results:
        r, n = v.reference, v.null
        table.add_row(
            v.task_id,
            v.family,
            mark(r is not None and r.error is None and not r.failed, "meets", "MISSES"),
            mark(n is not None and n.error is None and bool(n.failed), "fails", "PASSES"),
            f"{len(v.violations) - len(v.uncaught())}/{len(v.violations)}",
            mark(v.ok, "ok", "FAIL"),
        )
    return table


def _meets(v: CaseValidation) -> bool:
    return v.reference is not None and v.reference.error is None and not v.reference.failed


def validate_case_tasks(tasks: list[Task], workers: int, printer: Console) -> bool:
    """Validate scheduling cases and print the table; whether every case is valid."""
    began = time.monotonic()
    done = 0

    def progress(v: CaseValidation) -> None:
        nonlocal done
        done += 1
        err.print(f"[{done}/{len(tasks)}] {v.task_id} {'ok' if v.ok else 'FAIL'}", highlight=False)

    results = asyncio.run(validate_cases(tasks, workers, progress))
    printer.print(case_table(results))
    failed = [v for v in results if not v.ok]
    print_reasons(printer, [(v.task_id, v.reasons()) for v in failed])
    forbidden = sum(len(v.violations) for v in results)
    caught = forbidden - sum(len(v.uncaught()) for v in results)
    null_fails = sum(1 for v in results if v.null and v.null.failed)
    printer.print(
        f"{len(results)} cases in {time.monotonic() - began:.0f}s: reference meets the oracle "
        f"{sum(map(_meets, results))}/{len(results)}, null fails {null_fails}/{len(results)}, "
        f"forbidden effects caught {caught}/{forbidden}; {len(failed)} case(s) failed",
        highlight=False,
    )
    return not failed


@scheduling_app.command("scheduling")
def scheduling_cmd(
    out_dir: Annotated[Path, typer.Option("--out", help="Directory to write the corpus into.")],
    seed: Annotated[int, typer.Option("--seed", help="Draw seed (held-out sets: another).")] = (
        SCHEDULING_SEED
    ),
    per_family: Annotated[
        int, typer.Option("--per-family", min=1, help="Cards per family, starters included.")
    ] = PER_FAMILY,
    starters: Annotated[
        bool, typer.Option("--starters/--no-starters", help="Include the hand-written cards.")
    ] = True,
    name: Annotated[str | None, typer.Option("--name", help="Corpus name in the lock.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace a non-empty --out.")] = False,
) -> None:
    """Scheduling-lab cases: twelve workflow families over the scheduling service."""
    lock = generate_scheduling_corpus(
        seed, per_family, out_dir, name=name, force=force, starters=starters
    )
    err.print(
        f"wrote {len(lock.files)} cases to {out_dir} (draw seed {seed})\n"
        f"tree sha256 {lock.tree_hash}\n"
        f"validate them with: endstate corpus validate {out_dir}",
        highlight=False,
    )


@scheduling_app.command("reference-runs")
def reference_runs_cmd(
    path: Annotated[Path, typer.Argument(help="A corpus of scheduling cases.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for <case id>.json runs.")],
) -> None:
    """Write each case's reference run as a tool run, for `--agent tools-replay:DIR`."""
    corpus = load_corpus(named_corpus(path))
    cases = [t for t in corpus.tasks if t.format == scheduling_cases.FORMAT]
    if not cases:
        raise EndstateError(f"{path}: no scheduling cases ({scheduling_cases.FORMAT})")
    out_dir.mkdir(parents=True, exist_ok=True)
    for task in cases:
        run = {
            "system": "scheduling",
            "calls": task.grading.extra["reference"],
            "answer": task.grading.extra.get("reference_answer"),
        }
        (out_dir / f"{task.id}.json").write_text(json.dumps(run, indent=2) + "\n")
    err.print(f"wrote {len(cases)} reference run(s) to {out_dir}", highlight=False)

"""`endstate bundle RUN_DIR` and `endstate rescore BUNDLE`: a run re-scorable from one file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from endstate.cli.console import err, labelled, mark, out

if TYPE_CHECKING:  # the scoring machinery is imported only when a command runs
    from endstate.bundle.rescore import Row

EXIT_DIFFERS = 1  # the recomputation disagrees with a record
EXIT_REFUSED = 2  # a file's hash does not match: nothing was recomputed


def bundle_cmd(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.", metavar="RUN_DIR")],
    out_file: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Archive to write (default: RUN_ID.bundle.tar.gz beside RUN_DIR)."
        ),
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(
            "--corpus",
            help="The run's corpus folder, when it is no longer where the manifest says "
            "(its task files must hash as the manifest pinned them).",
        ),
    ] = None,
) -> None:
    """Pack a run into one archive that `endstate rescore` can check with nothing else."""
    from endstate.bundle.archive import checksum_path
    from endstate.bundle.pack import write_bundle

    target, digest, count = write_bundle(run_dir, out_file, corpus)
    out.print(f"wrote {target} ({count} files)", highlight=False, soft_wrap=True)
    out.print(f"wrote {checksum_path(target)} (sha256 {digest})", highlight=False, soft_wrap=True)


def _table(rows: list[Row], wrong: set[tuple[str, str]]) -> Table:
    """One line per task (its attempts' mean scores), so a large run stays short."""
    table = Table("task", "attempts", "passed", "recorded", "recomputed", "agrees")
    by_task: dict[str, list[Row]] = {}
    for row in rows:
        by_task.setdefault(row.task_id, []).append(row)
    for task_id, runs in by_task.items():
        recorded = sum(r.recorded for r in runs) / len(runs)
        again = [r.recomputed for r in runs]
        shown = "-" if None in again else f"{sum(a or 0.0 for a in again) / len(runs):.3f}"
        agrees = not any((task_id, r.attempt) in wrong for r in runs)
        passed = sum(r.status == "passed" for r in runs)
        table.add_row(task_id, str(len(runs)), str(passed), f"{recorded:.3f}", shown, mark(agrees))
    return table


def rescore_cmd(
    bundle: Annotated[Path, typer.Argument(help="A bundle archive.", metavar="BUNDLE")],
) -> None:
    """Verify a bundle's hashes and recompute every verdict and score from it alone."""
    from endstate.bundle.rescore import IntegrityError, rescore

    try:
        result = rescore(bundle)
    except IntegrityError as exc:
        for line in exc.lines:
            err.print(labelled("refused:", "red", line), highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_REFUSED) from None
    wrong = {(d.task_id, d.attempt) for d in result.differences}
    out.print(_table(result.rows, wrong))
    for diff in result.differences:
        err.print(labelled("differs:", "red", diff.line()), highlight=False, soft_wrap=True)
    if result.report is not None:
        err.print(labelled("differs:", "red", result.report), highlight=False, soft_wrap=True)
    summary = f"run {result.manifest.run_id}: {len(result.rows)} records"
    if result.differences or result.report is not None:
        shown = Text(f"{summary}, {len(wrong)} disagree with the recomputation", "red")
        out.print(shown, soft_wrap=True)
        raise typer.Exit(EXIT_DIFFERS)
    agreed = f"{summary}, every verdict, score and the report agree"
    out.print(agreed, highlight=False, soft_wrap=True)

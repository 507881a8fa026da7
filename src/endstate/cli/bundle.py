"""`endstate bundle RUN_DIR` and `endstate rescore BUNDLE`: a run re-scorable from one file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from endstate.cli.console import err, labelled, mark, out

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
    table = Table("task", "attempt", "status", "recorded", "recomputed", "agrees")
    wrong = {(d.task_id, d.attempt) for d in result.differences}
    for row in result.rows:
        again = "-" if row.recomputed is None else f"{row.recomputed:.3f}"
        agrees = (row.task_id, row.attempt) not in wrong
        table.add_row(
            row.task_id, row.attempt, row.status, f"{row.recorded:.3f}", again, mark(agrees)
        )
    out.print(table)
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

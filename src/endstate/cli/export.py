"""`endstate export RUN_DIR --format inspect|parquet`: a run in another tool's format."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from endstate.errors import EndstateError
from endstate.export.deps import require

# --format -> (module it needs, the package providing it, default file suffix)
FORMATS = {
    "inspect": ("inspect_ai.log", "inspect-ai", ".eval"),
    "parquet": ("pyarrow", "pyarrow", ".parquet"),
}


def export(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.", metavar="RUN_DIR")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="inspect: an Inspect AI eval log (one sample per attempt); "
            "parquet: a table with one row per attempt.",
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="File to write (default: RUN_DIR/export/RUN_ID.eval or .parquet); "
            "an Inspect log ending in .json is written as JSON.",
        ),
    ] = None,
) -> None:
    """Export a run's records, headline and pins for Inspect AI or dataframe tools."""
    if fmt not in FORMATS:
        raise EndstateError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")
    module, package, suffix = FORMATS[fmt]
    # Checked before any work, so a missing extra is the only thing the user hears about.
    require(module, package, f"--format {fmt}")
    if fmt == "inspect" and out is not None:
        from endstate.export.inspect_log import log_format

        log_format(out)  # a wrong suffix is refused before the run is read
    from endstate.export.source import load_run  # the run machinery: only when exporting

    run = load_run(run_dir)
    target = out if out is not None else run.root / "export" / f"{run.manifest.run_id}{suffix}"
    if fmt == "inspect":
        from endstate.export.inspect_log import write_inspect

        write_inspect(run, target)
        what = f"Inspect eval log, {len(run.records)} samples"
    else:
        from endstate.export.parquet import write_parquet

        write_parquet(run, target)
        what = f"parquet, {len(run.records)} rows"
    status = " — run interrupted" if run.interrupted else ""
    sys.stdout.write(f"wrote {target} ({what}{status})\n")

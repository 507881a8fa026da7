"""`endstate export RUN_DIR --format inspect|parquet`: a run in another tool's format; and
`endstate export sft RUN_DIR --split train`: its passing trajectories for fine-tuning."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from endstate.errors import EndstateError
from endstate.export.deps import require

FORMAT_COMMAND = "format"


class _FormatByDefault(TyperGroup):
    """`endstate export RUN_DIR --format ...` as before: anything that is not a subcommand
    name goes to the format export."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = [FORMAT_COMMAND, *args]
        return super().parse_args(ctx, args)


export_app = typer.Typer(
    cls=_FormatByDefault,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Export a run: `endstate export RUN_DIR --format inspect|parquet` for other tools, "
    "or `endstate export sft RUN_DIR --split train --out FILE.jsonl` for fine-tuning.",
)

# --format -> (module it needs, the package providing it, default file suffix)
FORMATS = {
    "inspect": ("inspect_ai.log", "inspect-ai", ".eval"),
    "parquet": ("pyarrow", "pyarrow", ".parquet"),
}


@export_app.command(FORMAT_COMMAND)
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


@export_app.command("sft")
def export_sft(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.", metavar="RUN_DIR")],
    split: Annotated[
        str,
        typer.Option(
            "--split",
            help="The split to export: only train (the test split is never exported).",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="The JSONL file to write.")],
    register: Annotated[
        Path | None,
        typer.Option(
            "--register",
            help="The contamination register to write (default: OUT with the suffix "
            ".contamination.yaml), for `endstate run --contamination`.",
        ),
    ] = None,
) -> None:
    """Passing trajectories of training-split tasks as chat-format JSONL, and the register of
    the exported cases."""
    from endstate.export.sft import require_train, write_sft

    require_train(split)  # refused before the run is read
    from endstate.export.source import load_run

    target = register if register is not None else out.with_suffix(".contamination.yaml")
    if target.resolve() == out.resolve():
        raise EndstateError(f"--register {target}: the same file as --out")
    done = write_sft(load_run(run_dir), out, target)
    sys.stdout.write(
        f"wrote {out} ({done.lines} passing trajectories of {len(done.cases)} tasks; "
        f"{done.left_out} attempts without full credit left out)\n"
        f"wrote {target} (contamination register, {len(done.cases)} cases)\n"
    )

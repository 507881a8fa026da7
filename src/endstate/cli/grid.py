"""`endstate grid`: run a declared ablation grid as one resumable unit, and report it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from endstate.cli.console import err, out
from endstate.grid.cells import plan_cells
from endstate.grid.manifest import CellState, read_grid_manifest
from endstate.grid.report import write_grid_report
from endstate.grid.runner import run_grid
from endstate.grid.spec import load_grid

grid_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Run a declared grid of agent configurations (agents × prompt modes × observations) "
    "as one resumable unit, and report it.",
)

GridFile = Annotated[Path, typer.Argument(help="The grid file (YAML).")]


def _cells_table(cells: list[CellState]) -> Table:
    table = Table("cell", "agent spec", "status", "run")
    for c in cells:
        table.add_row(c.id, c.agent, c.status, c.run_dir or "")
    return table


@grid_app.command("plan")
def plan_cmd(grid_file: GridFile) -> None:
    """List the cells a grid file declares, checked, without running any."""
    grid = load_grid(grid_file)
    cells = plan_cells(grid.spec, grid.path)
    table = Table("cell", "agent spec", "options")
    for c in cells:
        table.add_row(c.id, c.agent, ", ".join(f"{k}={v}" for k, v in sorted(c.options.items())))
    out.print(table)
    out.print(f"{len(cells)} cells, sha256 {grid.sha256[:16]}…", highlight=False)


@grid_app.command("run")
def run_cmd(
    grid_file: GridFile,
    out_dir: Annotated[
        Path, typer.Option("--out", help="The grid's folder; run again on it to resume.")
    ],
) -> None:
    """Run every cell not yet done (each an `endstate run`), then write the grid's report."""
    grid = load_grid(grid_file)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=True) as progress:
        bar = progress.add_task("cells", total=None)

        def on_cell(state: CellState, n: int, total: int) -> None:
            progress.update(bar, total=total, completed=n - 1, description=f"cell {state.id}")

        try:
            manifest = run_grid(grid, out_dir, on_cell)
        except KeyboardInterrupt:
            progress.stop()
            err.print(
                f"interrupted: resume with: endstate grid run {grid_file} --out {out_dir}",
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(130) from None
    out.print(_cells_table(manifest.cells))
    page = write_grid_report(out_dir, manifest)
    out.print(f"report: {page}", highlight=False, soft_wrap=True)
    failed = [c for c in manifest.cells if c.status != "done"]
    if failed:
        for c in failed:
            err.print(f"cell {c.id}: {c.detail or c.status}", highlight=False, soft_wrap=True)
        raise typer.Exit(1)


@grid_app.command("report")
def report_cmd(
    grid_dir: Annotated[Path, typer.Argument(help="A grid's folder.")],
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Where the page and tables go (default: GRID/report)."),
    ] = None,
) -> None:
    """Write the grid's HTML page and its tables (Markdown and CSV) from its cells' runs."""
    manifest = read_grid_manifest(grid_dir)
    page = write_grid_report(grid_dir, manifest, out_dir)
    out.print(f"report: {page}", highlight=False, soft_wrap=True)

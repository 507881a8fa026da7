"""Running a grid: each cell an ordinary `endstate run`, one after another, resumable.

A cell runs as its own `endstate run` process, so it is exactly the run a user would have made
by hand (same pins, same report, same resume) and a cell that crashes takes nothing else with
it. The grid's manifest is saved before and after every cell; run again on the same folder, a
grid skips the cells that finished, resumes (`--resume`) one that was cut off, and retries one
that failed.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from endstate.build import build_info
from endstate.builtin import named_corpus
from endstate.errors import EndstateError
from endstate.grid.cells import Cell, option_flags, plan_cells
from endstate.grid.manifest import (
    GRID_MANIFEST,
    CellState,
    GridManifest,
    now,
    read_grid_manifest,
    write_grid_manifest,
)
from endstate.grid.spec import GridSpec, LoadedGrid
from endstate.runs.store import RunStore

LOG = "run.log"


def corpus_of(spec: GridSpec, workdir: Path, where: str) -> Path:
    """The corpus every cell runs on: the named one, or a folder (relative to the grid file),
    narrowed to its split's folder when the grid names a split."""
    named = named_corpus(Path(spec.corpus))
    chosen = named if named.is_absolute() else workdir / named
    if not chosen.is_dir():
        raise EndstateError(f"{where}: corpus: {spec.corpus!r} is not a corpus folder")
    if spec.split is None:
        return chosen
    part = chosen / spec.split
    if not part.is_dir():
        raise EndstateError(
            f"{where}: split: {chosen} has no {spec.split!r} folder (endstate corpus split "
            "makes train and test)"
        )
    return part


def _state(cell: Cell) -> CellState:
    return CellState(
        id=cell.id,
        agent_name=cell.agent_name,
        prompt_mode=cell.prompt_mode,
        observation=cell.observation,
        agent=cell.agent,
        options=cell.options,
        folder=cell.folder,
    )


def open_grid(grid: LoadedGrid, root: Path) -> GridManifest:
    """The grid's manifest in `root`: made on the first call, checked against the grid file on
    every later one (an edited grid file is refused: the grid was declared before its results)."""
    workdir = Path(grid.path).parent
    cells = plan_cells(grid.spec, grid.path)
    corpus_of(grid.spec, workdir, grid.path)
    if (root / GRID_MANIFEST).exists():
        manifest = read_grid_manifest(root)
        if manifest.grid_sha256 != grid.sha256:
            raise EndstateError(
                f"{grid.path}: changed since the grid in {root} started (sha256 "
                f"{grid.sha256[:12]}…, declared {manifest.grid_sha256[:12]}…); a grid is declared "
                "before its results: start a new grid folder"
            )
        return manifest
    if root.exists() and any(root.iterdir()):
        raise EndstateError(f"{root}: not empty and not a grid folder; choose a new folder")
    root.mkdir(parents=True, exist_ok=True)
    manifest = GridManifest(
        name=grid.spec.name,
        grid_path=grid.path,
        grid_sha256=grid.sha256,
        grid_content=grid.content,
        workdir=str(workdir),
        created_at=now(),
        build=build_info(),
        cells=[_state(c) for c in cells],
    )
    write_grid_manifest(root, manifest)
    return manifest


def run_dir_of(root: Path, state: CellState) -> Path | None:
    """The run directory in a cell's folder (the newest, should a crash have left two)."""
    folder = root / state.folder
    runs = sorted(p for p in folder.glob("*/manifest.json")) if folder.is_dir() else []
    return runs[-1].parent if runs else None


def finished(run_dir: Path | None) -> bool:
    if run_dir is None:
        return False
    try:
        return RunStore(run_dir).read_manifest().finished_at is not None
    except EndstateError:
        return False


def command(
    spec: GridSpec, state: CellState, corpus: Path, out: Path, resume: Path | None
) -> list[str]:
    """The cell's `endstate run` command line."""
    base = [sys.executable, "-m", "endstate", "run"]
    if resume is not None:
        return [*base, "--resume", str(resume), "--out", str(out)]
    cell = Cell(state.agent_name, state.prompt_mode, state.observation, state.agent, state.options)
    args = [*base, "--corpus", str(corpus), "--agent", state.agent, *option_flags(cell)]
    args += ["--attempts", str(spec.attempts), "--workers", str(spec.workers)]
    args += ["--seed", str(spec.seed), "--out", str(out)]
    if spec.tasks:
        args += ["--tasks", spec.tasks]
    if spec.max_steps is not None:
        args += ["--max-steps", str(spec.max_steps)]
    if spec.time_limit is not None:
        args += ["--time-limit", str(spec.time_limit)]
    if spec.prices:
        args += ["--prices", spec.prices]
    return args


def _last_line(log: Path) -> str:
    try:
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "no log"
    return lines[-1][:300] if lines else "no output"


def run_cell(grid: LoadedGrid, root: Path, manifest: GridManifest, state: CellState) -> None:
    """Run (or resume) one cell to its end and record how it ended."""
    workdir = Path(manifest.workdir)
    out = (root / state.folder).resolve()
    out.mkdir(parents=True, exist_ok=True)
    existing = run_dir_of(root, state)
    if finished(existing):
        assert existing is not None
        state.run_dir, state.status = str(existing.relative_to(root)), "done"
        state.finished_at = state.finished_at or now()
        write_grid_manifest(root, manifest)
        return
    corpus = corpus_of(grid.spec, workdir, grid.path)
    args = command(grid.spec, state, corpus, out, existing.resolve() if existing else None)
    state.status, state.started_at, state.detail = "running", now(), None
    write_grid_manifest(root, manifest)
    with (out / LOG).open("a", encoding="utf-8") as log:
        log.write(f"$ {' '.join(args)}\n")
        log.flush()
        code = subprocess.run(args, cwd=workdir, stdout=log, stderr=log, check=False).returncode
    made = run_dir_of(root, state)
    state.exit_code = code
    state.run_dir = str(made.relative_to(root)) if made else None
    if finished(made):
        state.status, state.finished_at = "done", now()
    else:
        state.status = "failed"
        state.detail = f"exit {code}: {_last_line(out / LOG)} (log: {state.folder}/{LOG})"
    write_grid_manifest(root, manifest)


def run_grid(
    grid: LoadedGrid, root: Path, on_cell: Callable[[CellState, int, int], None] | None = None
) -> GridManifest:
    """Every cell not yet done, in the declared order; the manifest says how each ended."""
    manifest = open_grid(grid, root)
    todo = [c for c in manifest.cells if c.status != "done"]
    for n, state in enumerate(todo, start=1):
        if on_cell is not None:
            on_cell(state, n, len(todo))
        run_cell(grid, root, manifest, state)
    if all(c.status == "done" for c in manifest.cells):
        manifest.finished_at = manifest.finished_at or now()
        write_grid_manifest(root, manifest)
    return manifest

"""The grid's manifest: what was declared, and where each cell's run is.

Each cell is an ordinary run directory with its own manifest and pins; the grid's manifest
only ties them together: the grid file's text and hash (a grid resumed with an edited file is
refused), and each cell's run and state, saved after every change so a killed grid knows
which cells are done.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from endstate.build import BuildInfo
from endstate.errors import EndstateError, first_problem
from endstate.runs.store import write_atomically

GRID_MANIFEST = "grid.json"
CellStatus = Literal["pending", "running", "done", "failed"]


class CellState(BaseModel):
    id: str = Field(description="agent/prompt mode/observation ('-' where the grid has no axis).")
    agent_name: str
    prompt_mode: str
    observation: str
    agent: str = Field(description="The agent spec the cell's run was given.")
    options: dict[str, Any] = Field(description="The agent options the cell's run was given.")
    folder: str = Field(description="The cell's folder under the grid's, holding its run.")
    run_dir: str | None = Field(default=None, description="Its run directory, once started.")
    status: CellStatus = "pending"
    exit_code: int | None = None
    detail: str | None = Field(default=None, description="Why a cell failed.")
    started_at: str | None = None
    finished_at: str | None = None


class GridManifest(BaseModel):
    schema_version: int = 1
    name: str
    grid_path: str = Field(description="The grid file, as given when the grid started.")
    grid_sha256: str
    grid_content: str = Field(description="The grid file's text: what was declared.")
    workdir: str = Field(description="The folder relative paths of the grid file resolve in.")
    created_at: str
    finished_at: str | None = None
    build: BuildInfo
    cells: list[CellState]

    def cell(self, cell_id: str) -> CellState:
        for c in self.cells:
            if c.id == cell_id:
                return c
        raise KeyError(cell_id)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_grid_manifest(root: Path, manifest: GridManifest) -> None:
    write_atomically(root / GRID_MANIFEST, manifest.model_dump_json(indent=2) + "\n")


def read_grid_manifest(root: Path) -> GridManifest:
    path = root / GRID_MANIFEST
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EndstateError(f"{root}: not a grid folder (no {GRID_MANIFEST})") from None
    except OSError as exc:
        raise EndstateError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return GridManifest.model_validate_json(raw)
    except ValidationError as exc:
        raise EndstateError(f"{path}: {first_problem(exc)}") from None

"""A grid file: the agents, prompt modes and observation modes of an ablation, declared before
any cell runs.

The paper's ablation compares agents across how they are prompted and what they see. Declaring
the whole grid in one file, pinned by its hash, keeps a grid from growing cells after the
first results are in, and lets a killed grid resume exactly the cells it declared.

    name: ablation
    corpus: builtin            # a corpus folder, or a built-in name
    split: test                # optional: the corpus's `test` folder (made by `corpus split`)
    tasks: "pa-*"              # optional task id glob(s)
    attempts: 1
    agents:
      - name: gpt
        agent: cu-chat:gpt-4o
        options: {base_url: "https://api.openai.com/v1"}
    prompt_modes: [task, task+guidance]
    observations: [screenshot, accessibility, both]
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
)

from endstate.errors import EndstateError
from endstate.yamlfile import validated, yaml_data

PromptModeName = Literal["task", "task+guidance"]
ObservationName = Literal["screenshot", "accessibility", "both"]
_NAME = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")


def plain_name(value: str) -> str:
    """A name that is also a folder name: letters, digits, '.', '_' and '-'."""
    if not _NAME.match(value):
        raise ValueError(f"{value!r}: letters, digits, '.', '_' and '-' only (at most 64)")
    return value


PlainName = Annotated[str, AfterValidator(plain_name)]


class GridAgent(BaseModel):
    """One agent of the grid: a spec as `endstate run --agent` takes it, with its options.

    `{prompt_mode}` and `{observation}` in the spec or an option's value are replaced by the
    cell's values, for agents (a command, a replay folder per cell) that take them that way."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: PlainName = Field(description="The agent's name in every table (letters, digits, . _ -).")
    agent: str = Field(min_length=1, description="The agent spec, e.g. cu-chat:MODEL.")
    options: dict[str, Any] = Field(default_factory=dict, description="Its kind's options.")


class GridSpec(BaseModel):
    """The declared grid; each (agent, prompt mode, observation) is one cell, one run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: PlainName = Field(description="The grid's name.")
    corpus: str = Field(default="builtin", description="Corpus folder or built-in name.")
    split: str | None = Field(
        default=None, description="A split of the corpus (its folder of that name)."
    )
    tasks: str | None = Field(default=None, description="Task id glob(s), comma-separated.")
    attempts: int = Field(default=1, ge=1, description="Attempts per task in every cell.")
    workers: int = Field(default=2, ge=1, description="Parallel attempts in a cell.")
    max_steps: int | None = Field(default=None, ge=1, description="Actions per attempt.")
    time_limit: float | None = Field(default=None, ge=1, description="Seconds per attempt.")
    seed: int = Field(default=0, description="Run seed of every cell.")
    prices: str | None = Field(default=None, description="A price table for the cost figure.")
    agents: list[GridAgent] = Field(min_length=1)
    prompt_modes: list[PromptModeName] | None = Field(
        default=None, description="Omitted: no prompt-mode axis (each agent's own)."
    )
    observations: list[ObservationName] | None = Field(
        default=None, description="Omitted: no observation axis (each agent's own)."
    )

    @field_validator("agents")
    @classmethod
    def _distinct(cls, value: list[GridAgent]) -> list[GridAgent]:
        names = [a.name for a in value]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"agent name {twice[0]!r} is given twice")
        return value

    @field_validator("prompt_modes", "observations")
    @classmethod
    def _axis(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            if not value:
                raise ValueError("an axis lists at least one value (omit it for none)")
            twice = sorted({v for v in value if value.count(v) > 1})
            if twice:
                raise ValueError(f"{twice[0]!r} is listed twice")
        return value


class LoadedGrid(BaseModel):
    """A grid file as read: its spec, where it was, and the hash that pins it."""

    path: str
    sha256: str
    content: str
    spec: GridSpec


def parse_grid(content: str, where: str) -> GridSpec:
    data = yaml_data(content, where)
    if not isinstance(data, dict):
        raise EndstateError(f"{where}: expected a mapping (name, agents, prompt_modes, ...)")
    return validated(GridSpec, data, where)


def load_grid(path: Path) -> LoadedGrid:
    """Read and check a grid file; every problem is one line naming the file and field."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise EndstateError(f"{path}: cannot read grid file ({exc.strerror})") from None
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise EndstateError(f"{path}: not UTF-8 text") from None
    spec = parse_grid(content, str(path))
    return LoadedGrid(
        path=str(path.resolve()),
        sha256=hashlib.sha256(raw).hexdigest(),
        content=content,
        spec=spec,
    )

"""A grid's cells: each agent under each prompt mode and observation, as one run's agent.

An axis only means something if it changes the agent, so every agent must take each declared
axis: as its kind's own option (`prompt_mode`, `observe`), or through `{prompt_mode}` /
`{observation}` in its spec or options (a command's flag, a replay folder per cell). An agent
that would ignore an axis is refused before anything runs: its cells would differ only in
name, and a heat map of them would show noise as an effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from endstate.agents.registry import agent_options, kind_of
from endstate.errors import EndstateError
from endstate.grid.spec import GridAgent, GridSpec

NO_AXIS = "-"  # an axis the grid does not declare: one value, shown as a dash
AXES: dict[str, str] = {"prompt_mode": "prompt_mode", "observation": "observe"}  # -> option


@dataclass(frozen=True)
class Cell:
    """One configuration: an agent, a prompt mode and an observation, and the run it needs."""

    agent_name: str
    prompt_mode: str
    observation: str
    agent: str  # the spec, placeholders filled
    options: dict[str, Any]  # validated against the agent's kind

    @property
    def id(self) -> str:
        return f"{self.agent_name}/{self.prompt_mode}/{self.observation}"

    @property
    def folder(self) -> str:
        """Where the cell's run lives under the grid's folder."""
        return f"cells/{self.agent_name}/{self.prompt_mode}/{self.observation}"


def _fill(value: Any, values: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        for axis, chosen in values.items():
            value = value.replace("{" + axis + "}", chosen)
        return value
    if isinstance(value, list):
        return [_fill(v, values) for v in value]
    return value


def _mentions(agent: GridAgent, axis: str) -> bool:
    token = "{" + axis + "}"
    texts = [agent.agent, *(str(v) for v in agent.options.values())]
    texts += [str(i) for v in agent.options.values() if isinstance(v, list) for i in v]
    return any(token in t for t in texts)


def _check_agent(agent: GridAgent, index: int, spec: GridSpec, where: str) -> None:
    declared = {"prompt_mode": spec.prompt_modes, "observation": spec.observations}
    kind, _ = kind_of(agent.agent)
    for axis, option in AXES.items():
        at = f"{where}: agents.{index} ({agent.name})"
        if option in agent.options and declared[axis] is not None:
            raise EndstateError(f"{at}: option {option!r} is the grid's {axis} axis; drop it")
        if declared[axis] is None:
            if _mentions(agent, axis):
                raise EndstateError(
                    f"{at}: uses {{{axis}}} but the grid declares no {axis}s (list them)"
                )
            continue
        if option not in kind.options.model_fields and not _mentions(agent, axis):
            raise EndstateError(
                f"{at}: kind {kind.name!r} takes no {option!r} and its spec and options use no "
                f"{{{axis}}}, so the {axis} axis would not change it"
            )


def plan_cells(spec: GridSpec, where: str) -> list[Cell]:
    """Every cell, agent by agent, then prompt mode, then observation; each agent's options
    checked against its kind now, not when its cell's turn comes."""
    prompts: list[str] = [*spec.prompt_modes] if spec.prompt_modes else [NO_AXIS]
    observations: list[str] = [*spec.observations] if spec.observations else [NO_AXIS]
    cells = []
    for index, agent in enumerate(spec.agents):
        _check_agent(agent, index, spec, where)
        for prompt in prompts:
            for observation in observations:
                values: dict[str, str] = {"prompt_mode": prompt, "observation": observation}
                filled = _fill(agent.agent, values)
                options = {k: _fill(v, values) for k, v in agent.options.items()}
                kind, _ = kind_of(filled)
                if prompt != NO_AXIS and "prompt_mode" in kind.options.model_fields:
                    options["prompt_mode"] = prompt
                if observation != NO_AXIS and "observe" in kind.options.model_fields:
                    options["observe"] = observation
                try:
                    agent_options(filled, options)
                except EndstateError as exc:
                    raise EndstateError(f"{where}: agents.{index} ({agent.name}): {exc}") from None
                cells.append(Cell(agent.name, prompt, observation, filled, options))
    return cells


def option_flags(cell: Cell) -> list[str]:
    """The cell's options as `--agent-option KEY=VALUE` arguments (a list option repeated)."""
    flags = []
    for key, value in sorted(cell.options.items()):
        for item in value if isinstance(value, list) else [value]:
            text = str(item).lower() if isinstance(item, bool) else str(item)
            flags += ["--agent-option", f"{key}={text}"]
    return flags

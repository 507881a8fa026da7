"""The UI action vocabulary shared by replay and llm agents, and trajectory files of it.

Targets are named the way a person or a screen reader names them (ARIA role + accessible name,
label text, visible text), never by CSS: trajectories then survive markup changes, and an agent
can only do what real input through the rendered page can do.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from playwright.async_api import Page
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from endstate.errors import EndstateError

TRAJECTORY_VERSION: Literal[1] = 1
MAX_WAIT_SECONDS = 10.0

# The roles Playwright's get_by_role accepts, read from its own signature so they never drift.
# If that ever stops being introspectable the set is empty and Playwright itself judges roles.
ARIA_ROLES: frozenset[str] = frozenset(
    get_args(inspect.signature(Page.get_by_role).parameters["role"].annotation)
)


class TrajectoryError(EndstateError):
    """A trajectory file cannot be read or does not match the action vocabulary."""


class Target(BaseModel):
    """One element, addressed by role + accessible name, by label, or by visible text.

    Matching prefers an exact (case-sensitive) name; when nothing matches exactly, a unique
    case-insensitive substring match is accepted unless `exact` is set. `nth` (0-based) picks
    one of several visible matches.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str | None = None
    name: str | None = None
    label: str | None = None
    text: str | None = None
    nth: int | None = Field(default=None, ge=0)
    exact: bool | None = None

    @field_validator("role")
    @classmethod
    def _known_role(cls, role: str | None) -> str | None:
        if role is not None and ARIA_ROLES and role not in ARIA_ROLES:
            raise ValueError(f"unknown ARIA role {role!r}")
        return role

    @model_validator(mode="after")
    def _one_address(self) -> Target:
        given = [k for k in ("role", "label", "text") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of 'role' (with optional 'name'), 'label' or 'text'")
        if self.name is not None and self.role is None:
            raise ValueError("'name' is only used together with 'role'")
        return self

    def describe(self) -> str:
        if self.role is not None:
            what = f"{self.role} {self.name!r}" if self.name is not None else self.role
        elif self.label is not None:
            what = f"field labelled {self.label!r}"
        else:
            what = f"text {self.text!r}"
        return what if self.nth is None else f"{what} (nth={self.nth})"


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Click(_Action):
    type: Literal["click"] = "click"
    target: Target


class Fill(_Action):
    type: Literal["fill"] = "fill"
    target: Target
    value: str


class Select(_Action):
    """Choose an option by its visible label, in a native select or a custom listbox."""

    type: Literal["select"] = "select"
    target: Target
    option: str


class Press(_Action):
    """Press a key (Playwright key names: Enter, Tab, Escape, ArrowDown, Control+A...)."""

    type: Literal["press"] = "press"
    key: str = Field(min_length=1)
    target: Target | None = None


class Check(_Action):
    type: Literal["check"] = "check"
    target: Target


class Uncheck(_Action):
    type: Literal["uncheck"] = "uncheck"
    target: Target


class Upload(_Action):
    """Attach files to a file input (or to whatever opens a file chooser when clicked)."""

    type: Literal["upload"] = "upload"
    target: Target
    path: str | list[str]

    @property
    def paths(self) -> list[str]:
        return [self.path] if isinstance(self.path, str) else list(self.path)


class Download(_Action):
    """Click something that starts a download; the file is saved and its path reported."""

    type: Literal["download"] = "download"
    target: Target


class Goto(_Action):
    """Open a URL; a relative URL resolves against the current page."""

    type: Literal["goto"] = "goto"
    url: str = Field(min_length=1)


class Wait(_Action):
    type: Literal["wait"] = "wait"
    seconds: float = Field(gt=0, le=MAX_WAIT_SECONDS)


class Done(_Action):
    type: Literal["done"] = "done"
    message: str


class GiveUp(_Action):
    type: Literal["give_up"] = "give_up"
    message: str


Action = Annotated[
    Click
    | Fill
    | Select
    | Press
    | Check
    | Uncheck
    | Upload
    | Download
    | Goto
    | Wait
    | Done
    | GiveUp,
    Field(discriminator="type"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
_MODELS = (Click, Fill, Select, Press, Check, Uncheck, Upload, Download, Goto, Wait, Done, GiveUp)
ACTION_TYPES: tuple[str, ...] = tuple(m.model_fields["type"].default for m in _MODELS)
TERMINAL = (Done, GiveUp)


def action_schema() -> dict[str, Any]:
    """JSON Schema of one action, for documentation and for agents that want it."""
    return ACTION_ADAPTER.json_schema()


def dump_action(action: Action) -> dict[str, Any]:
    return action.model_dump(exclude_none=True, exclude_defaults=False)


# ---------------------------------------------------------------------------------------------
# Validation errors as one line


def describe_validation_error(err: ValidationError) -> str:
    """The first error as `field: problem`, with a count of the rest: short enough for one line."""
    errors = err.errors(include_url=False)
    first = errors[0]
    where, kind = _field_path(first["loc"])
    msg = _error_message(first)
    text = f"{where}: {msg}" if where else msg
    if kind:
        text += f" ({kind} action)"
    if len(errors) > 1:
        text += f" (+{len(errors) - 1} more)"
    return text


def _field_path(loc: tuple[int | str, ...]) -> tuple[str, str | None]:
    """Render a pydantic location as `actions[2].target.role`, dropping union tag names."""
    out = ""
    kind: str | None = None
    prev_index = False
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
            prev_index = True
            continue
        is_tag = part in ACTION_TYPES and (prev_index or (i == 0 and len(loc) > 1))
        if is_tag and kind is None:
            kind = part
        elif part not in {"str", "list[str]"}:
            out += f".{part}" if out else part
        prev_index = False
    return out, kind


def _error_message(error: Any) -> str:
    kind = error["type"]
    if kind == "union_tag_not_found":
        return f"missing 'type' (one of: {', '.join(ACTION_TYPES)})"
    if kind == "union_tag_invalid":
        tag = error.get("ctx", {}).get("tag")
        return f"unknown action type {tag!r} (one of: {', '.join(ACTION_TYPES)})"
    if kind == "extra_forbidden":
        return "unknown field"
    msg = str(error["msg"])
    return msg.removeprefix("Value error, ")


# ---------------------------------------------------------------------------------------------
# Trajectory files


class Trajectory(BaseModel):
    """A recorded sequence of actions: `{"version": 1, "actions": [...]}`."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = TRAJECTORY_VERSION
    description: str | None = None
    actions: list[Action]


def parse_trajectory(text: str, source: str = "<trajectory>") -> Trajectory:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TrajectoryError(
            f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise TrajectoryError(f"{source}: nested too deeply to read") from None
    except ValueError as exc:  # Python's own limits, e.g. an integer of over 4,300 digits
        raise TrajectoryError(f"{source}: unreadable number: {str(exc).split(';')[0]}") from None
    try:
        return Trajectory.model_validate(data)
    except ValidationError as exc:
        raise TrajectoryError(f"{source}: {describe_validation_error(exc)}") from None


def load_trajectory(path: Path | str) -> Trajectory:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TrajectoryError(f"{path}: trajectory file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TrajectoryError(f"{path}: cannot read trajectory: {exc}") from None
    return parse_trajectory(text, str(path))


def save_trajectory(
    actions: Trajectory | Sequence[Action], path: Path | str, description: str | None = None
) -> Path:
    """Write a trajectory file atomically (temp file + rename) so a crash leaves no half file."""
    path = Path(path)
    trajectory = (
        actions
        if isinstance(actions, Trajectory)
        else Trajectory(actions=list(actions), description=description)
    )
    data = trajectory.model_dump(mode="json", exclude_none=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path

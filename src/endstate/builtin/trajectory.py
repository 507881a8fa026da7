"""Reference trajectories: the replay vocabulary plus `capture`, and a player for them.

Cross-system work needs values that only exist once the episode runs: the confirmation
number a portal issues, the portal link (with its episode token) the EHR shows. A person
reads them off the screen; a trajectory does the same with a `capture` step, which reads an
element's text, an attribute, or the page URL (through a regular expression) into a named
variable that later steps use as `${name}`. Everything else is the replay agent's own
action vocabulary, performed by its own executor, so a reference trajectory proves the task
is solvable through the rendered pages and nothing else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Page
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from endstate.agents.actions import (
    ACTION_ADAPTER,
    Action,
    Target,
    describe_validation_error,
    dump_action,
)
from endstate.agents.perform import ActionFailed, ActOptions, perform, resolve

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class Capture(BaseModel):
    """Read a value off the page into a variable: element text or attribute, or the URL."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["capture"] = "capture"
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    target: Target | None = None
    attribute: str | None = None
    pattern: str | None = None


Step = Action | Capture


class StepError(ValueError):
    """A trajectory step that does not match the vocabulary."""


def parse_step(raw: dict[str, Any]) -> Step:
    try:
        if raw.get("type") == "capture":
            return Capture.model_validate(raw)
        return ACTION_ADAPTER.validate_python(raw)
    except ValidationError as exc:
        raise StepError(describe_validation_error(exc)) from None


def dump_step(step: Step) -> dict[str, Any]:
    if isinstance(step, Capture):
        return step.model_dump(exclude_none=True)
    return dump_action(step)


def parse_steps(raws: Sequence[dict[str, Any]]) -> list[Step]:
    return [parse_step(r) for r in raws]


def substitute(raw: Any, variables: dict[str, str]) -> Any:
    """Replace `${name}` in every string of a step; an unknown name is an error."""
    if isinstance(raw, str):

        def one(m: re.Match[str]) -> str:
            if m.group(1) not in variables:
                raise ActionFailed(f"variable ${{{m.group(1)}}} was never captured")
            return variables[m.group(1)]

        return _VARIABLE.sub(one, raw)
    if isinstance(raw, list):
        return [substitute(x, variables) for x in raw]
    if isinstance(raw, dict):
        return {k: substitute(v, variables) for k, v in raw.items()}
    return raw


@dataclass
class PlayResult:
    """How far a trajectory got: steps done, the first failure, the captured values."""

    completed: int
    error: str | None = None
    variables: dict[str, str] = field(default_factory=dict)
    message: str | None = None  # the last done/give_up step's message: an errand's answer

    @property
    def ok(self) -> bool:
        return self.error is None


async def _capture(page: Page, step: Capture, timeout_ms: float) -> str:
    if step.target is None:
        text = page.url
    else:
        loc = await resolve(page, step.target, timeout_ms)
        if step.attribute:
            text = await loc.get_attribute(step.attribute, timeout=timeout_ms) or ""
        else:
            text = await loc.inner_text(timeout=timeout_ms)
    if step.pattern is None:
        return text.strip()
    match = re.search(step.pattern, text)
    if match is None:
        raise ActionFailed(f"capture {step.name}: nothing matches {step.pattern!r}")
    return match.group(1) if match.groups() else match.group(0)


async def play(
    page: Page,
    steps: Sequence[dict[str, Any]],
    options: ActOptions,
    checkpoint: int | None = None,
    on_checkpoint: Any = None,
) -> PlayResult:
    """Perform steps in order through real input; stop at the first one that fails.

    `on_checkpoint` (an async callable) runs just before step `checkpoint`, so a caller can
    read the end state a shorter trajectory would have left.
    """
    variables: dict[str, str] = {}
    message: str | None = None
    for i, raw in enumerate(steps):
        if checkpoint is not None and i == checkpoint and on_checkpoint is not None:
            await on_checkpoint()
        try:
            step = parse_step(substitute(raw, variables))
            if isinstance(step, Capture):
                variables[step.name] = await _capture(page, step, options.timeout_ms)
                continue
            if step.type in ("done", "give_up"):
                message = step.message
                continue
            result = await perform(page, step, options)
        except (ActionFailed, StepError) as exc:
            return PlayResult(i, f"step {i} ({raw.get('type')}): {exc}", variables)
        except Exception as exc:  # a page that broke mid-step is a failed step, not a crash
            return PlayResult(i, f"step {i} ({raw.get('type')}): {type(exc).__name__}: {exc}")
        if not result.ok:
            return PlayResult(i, f"step {i} ({raw.get('type')}): {result.message}", variables)
    if checkpoint is not None and checkpoint >= len(steps) and on_checkpoint is not None:
        await on_checkpoint()
    return PlayResult(len(steps), None, variables, message)


def apply_edits(
    steps: Sequence[dict[str, Any]], edits: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A mutation's trajectory: edits address the reference's own step indices.

    `{"op": "drop", "at": i}`, `{"op": "replace", "at": i, "step": {...}}`,
    `{"op": "insert", "at": i, "steps": [...]}` (before step i; i may equal the length).
    """
    before: list[list[dict[str, Any]]] = [[] for _ in range(len(steps) + 1)]
    kept: list[dict[str, Any] | None] = [dict(s) for s in steps] + [None]
    for edit in edits:
        at = int(edit["at"])
        if not 0 <= at <= len(steps):
            raise StepError(f"edit {edit.get('op')!r} at {at}: out of range")
        op = edit.get("op")
        if op == "drop" and at < len(steps):
            kept[at] = None
        elif op == "replace" and at < len(steps):
            kept[at] = dict(edit["step"])
        elif op == "insert":
            before[at] += [dict(s) for s in edit["steps"]]
        else:
            raise StepError(f"edit {op!r} at {at}: not a valid edit")
    out: list[dict[str, Any]] = []
    for inserted, step in zip(before, kept, strict=True):
        out += inserted
        if step is not None:
            out.append(step)
    return out


_BASE_URL = "^https?://[^/]+"
STOPPED = "stopped: the next step needs a value read off the page"


def as_replay(steps: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A reference trajectory as the replay agent (`replay:DIR`) can play it, for validation
    runs: captures of a system's base URL become relative URLs, and the trajectory ends (done)
    before the first step that needs any other captured value."""
    bases: set[str] = set()
    actions: list[dict[str, Any]] = []
    for step in steps:
        is_capture = step.get("type") == "capture"
        if is_capture and step.get("pattern") == _BASE_URL and step.get("target") is None:
            bases.add(str(step["name"]))
            continue
        if is_capture or set(_VARIABLE.findall(json.dumps(step))) - bases:
            actions.append({"type": "done", "message": STOPPED})
            break
        actions.append(substitute(dict(step), dict.fromkeys(bases, "")))
    return actions


def write_replays(corpus: Path, folder: Path) -> int:
    """One `<task id>.json` replay file per task with a reference trajectory; how many were
    complete (played to the reference's own end)."""
    from endstate.corpus.loader import load_corpus

    folder.mkdir(parents=True, exist_ok=True)
    complete = 0
    for task in load_corpus(corpus).tasks:
        reference = task.grading.extra.get("reference")
        if not reference:
            continue
        actions = as_replay(reference["steps"])
        complete += actions[-1:] != [{"type": "done", "message": STOPPED}]
        body = {"version": 1, "actions": actions}
        (folder / f"{task.id}.json").write_text(json.dumps(body, indent=1))
    return complete

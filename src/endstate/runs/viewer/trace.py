"""One attempt's trace folder, read for display: steps, screens, the agent's final word.

Everything here was written by, or on behalf of, the agent: it is read leniently (an odd
entry is skipped and said so, never a crash) and never trusted as markup (the templates
escape it). A computer-use agent's screens are `screens/step-NNNN.png`, NNNN the step
number; `step-0000.png` is the first screen, before any action.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from endstate.jsonfile import JsonRefused, decode
from endstate.runs.viewer.run_data import file_href, inside

ACTIONS = "actions.json"
FINAL = "final.json"
END_STATE = "end_state.json"
SCREENS = "screens"
SCREEN_NAME = re.compile(r"step-(\d{4,9})\.png")
MAX_INLINE = 8 * 1024 * 1024  # a larger file is linked, not pasted into the page
MAX_FILES = 200
AGENT_OUTPUT = ("agent.stdout.txt", "agent.stderr.txt")  # a command agent's, as captured
MAX_OUTPUT_SHOWN = 64 * 1024  # bytes of each shown on the page; the file holds the rest


@dataclass(frozen=True)
class Step:
    """One step: the action taken and what came of it, the model's words, the screen after."""

    number: int
    action: dict[str, Any] | None = None
    ok: bool | None = None
    result: str = ""
    at: float | None = None
    thought: str | None = None
    screen: str | None = None  # the screen's URL under /files/

    @property
    def kind(self) -> str:
        if self.action is None:
            return "start" if self.number == 0 else "screen"
        return str(self.action.get("type", "action"))

    @property
    def action_json(self) -> str:
        return json.dumps(self.action, indent=2, ensure_ascii=False)


@dataclass(frozen=True)
class Loaded:
    """A JSON file of the trace, or why it could not be read."""

    data: Any = None
    problem: str | None = None

    @property
    def pretty(self) -> str:
        return json.dumps(self.data, indent=2, ensure_ascii=False)


@dataclass(frozen=True)
class TraceFile:
    name: str
    href: str
    size: int


@dataclass(frozen=True)
class Output:
    """The head of one of the agent's output streams, as text (undecodable bytes escaped)."""

    name: str
    text: str
    size: int

    @property
    def cut(self) -> int:
        """Bytes of the file not shown on the page."""
        return max(0, self.size - MAX_OUTPUT_SHOWN)


@dataclass
class Trace:
    steps: list[Step] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    final: Loaded = field(default_factory=Loaded)
    end_state: Loaded = field(default_factory=Loaded)
    files: list[TraceFile] = field(default_factory=list)
    output: list[Output] = field(default_factory=list)


def read_json(path: Path) -> Loaded:
    if not path.is_file():
        return Loaded(problem=f"no {path.name} in the trace")
    size = path.stat().st_size
    if size > MAX_INLINE:
        return Loaded(problem=f"{path.name} is {size:,} bytes, too large to show: open the file")
    try:
        return Loaded(data=decode(path.read_bytes(), strict=False))
    except JsonRefused as exc:
        return Loaded(problem=f"{path.name}: {exc}")


def read_trace(root: Path, folder: Path) -> Trace:
    """The trace in `folder` (inside `root`): steps merged with screens, final word, files."""
    prefix = folder.relative_to(root.resolve()).parts
    trace = Trace(final=read_json(folder / FINAL), end_state=read_json(folder / END_STATE))
    actions = read_json(folder / ACTIONS)
    steps = _action_steps(actions, trace.problems)
    screens = _screens(root, folder, prefix)
    numbered = {s.number for s in steps}
    steps = [replace(s, screen=screens[s.number]) if s.number in screens else s for s in steps]
    steps += [Step(number=n, screen=href) for n, href in screens.items() if n not in numbered]
    trace.steps = sorted(steps, key=lambda s: s.number)
    trace.files = _files(root, folder, prefix)
    trace.output = [o for n in AGENT_OUTPUT if (o := _output(root, prefix, n)) is not None]
    return trace


def _output(root: Path, prefix: tuple[str, ...], name: str) -> Output | None:
    path = inside(root, *prefix, name)
    if path is None or not path.is_file():
        return None
    with path.open("rb") as fh:
        head = fh.read(MAX_OUTPUT_SHOWN)
    return Output(name, head.decode("utf-8", "backslashreplace"), path.stat().st_size)


def _action_steps(actions: Loaded, problems: list[str]) -> list[Step]:
    if actions.problem is not None:
        if not actions.problem.startswith("no "):
            problems.append(actions.problem)
        return []
    if not isinstance(actions.data, list):
        problems.append(f"{ACTIONS}: not a list of action records")
        return []
    steps: list[Step] = []
    for i, entry in enumerate(actions.data, start=1):
        if not isinstance(entry, dict):
            problems.append(f"{ACTIONS}: entry {i} is not an action record; skipped")
            continue
        number = entry.get("step")
        action = entry.get("action")
        at = entry.get("at")
        thought = entry.get("thought")
        steps.append(
            Step(
                number=number if isinstance(number, int) and number >= 0 else i,
                action=action if isinstance(action, dict) else {"value": action},
                ok=entry.get("ok") if isinstance(entry.get("ok"), bool) else None,
                result=str(entry.get("result", "")),
                at=float(at) if isinstance(at, int | float) else None,
                thought=thought if isinstance(thought, str) and thought else None,
            )
        )
    return steps


def _screens(root: Path, folder: Path, prefix: tuple[str, ...]) -> dict[int, str]:
    """Step number -> URL of its screen, for each screen file inside the run directory."""
    shots = folder / SCREENS
    if not shots.is_dir():
        return {}
    out: dict[int, str] = {}
    for path in shots.iterdir():
        match = SCREEN_NAME.fullmatch(path.name)
        real = inside(root, *prefix, SCREENS, path.name)
        if match and real is not None and real.is_file():
            out[int(match.group(1))] = file_href(*prefix, SCREENS, path.name)
    return dict(sorted(out.items()))


def _files(root: Path, folder: Path, prefix: tuple[str, ...]) -> list[TraceFile]:
    """The trace's files (agent output, downloads...), screens aside: they are in the steps."""
    out: list[TraceFile] = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).parts
        if rel[0] == SCREENS or not path.is_file() or inside(root, *prefix, *rel) is None:
            continue
        out.append(TraceFile("/".join(rel), file_href(*prefix, *rel), path.stat().st_size))
        if len(out) >= MAX_FILES:
            break
    return out

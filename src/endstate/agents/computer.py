"""The coordinate action space and the contract a computer-use model backend fulfils.

Computer-use models see screenshots and act with pixel coordinates through their vendor's own
tool (Anthropic's `computer` tool, OpenAI's `computer_use_preview`, ...). Each backend
translates its vendor's calls into these neutral actions and the harness performs them with
real Playwright mouse and keyboard input, so every vendor is held to the same input channel,
trace and firewall. Coordinates are CSS pixels of the pinned viewport.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from endstate.agents.actions import MAX_WAIT_SECONDS, Done, GiveUp

MouseButton = Literal["left", "right", "middle"]


class _CoordAction(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Modifiers = Annotated[
    list[str],
    Field(description="Keys held down during the action (Playwright names: Shift, Control...)."),
]


class Point(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    x: int = Field(ge=0)
    y: int = Field(ge=0)


class ClickAt(_CoordAction):
    type: Literal["click_at"] = "click_at"
    x: int = Field(ge=0)
    y: int = Field(ge=0)
    button: MouseButton = "left"
    clicks: int = Field(default=1, ge=1, le=3, description="2 for a double, 3 for a triple click.")
    modifiers: Modifiers = Field(default_factory=list)


class MoveTo(_CoordAction):
    type: Literal["move_to"] = "move_to"
    x: int = Field(ge=0)
    y: int = Field(ge=0)


class Drag(_CoordAction):
    """Press at the first point, move through the rest, release at the last."""

    type: Literal["drag"] = "drag"
    path: list[Point] = Field(min_length=2)
    modifiers: Modifiers = Field(default_factory=list)


class ScrollAt(_CoordAction):
    """Scroll the element under (x, y) by (dx, dy) CSS pixels (positive: right, down)."""

    type: Literal["scroll_at"] = "scroll_at"
    x: int = Field(ge=0)
    y: int = Field(ge=0)
    dx: int = 0
    dy: int = 0
    modifiers: Modifiers = Field(default_factory=list)


class TypeText(_CoordAction):
    """Type text into whatever has focus, as key presses."""

    type: Literal["type_text"] = "type_text"
    text: str


class KeyChord(_CoordAction):
    """Press keys together, e.g. ["Control", "a"] (Playwright key names), then release."""

    type: Literal["key"] = "key"
    keys: list[str] = Field(min_length=1)


class Pause(_CoordAction):
    type: Literal["pause"] = "pause"
    seconds: float = Field(gt=0, le=MAX_WAIT_SECONDS)


class Screenshot(_CoordAction):
    """Ask for a fresh look without acting (some tools make this an explicit call)."""

    type: Literal["screenshot"] = "screenshot"


CoordAction = Annotated[
    ClickAt | MoveTo | Drag | ScrollAt | TypeText | KeyChord | Pause | Screenshot | Done | GiveUp,
    Field(discriminator="type"),
]
COORD_ACTION_ADAPTER: TypeAdapter[CoordAction] = TypeAdapter(CoordAction)


@dataclass(frozen=True)
class Viewport:
    """The browser's size in CSS pixels: pinned in the manifest, told to the model."""

    width: int = 1280
    height: int = 800


@dataclass(frozen=True)
class Screen:
    """What a backend is shown after each turn: the page as pixels, and/or as text."""

    url: str
    viewport: Viewport
    png: bytes | None = None  # the screenshot (with marks drawn on it, if marks are on)
    accessibility: str | None = None  # the rendered accessibility snapshot, if observed
    marks: dict[int, dict[str, Any]] | None = None  # set-of-marks: number -> element facts


@dataclass(frozen=True)
class ActionOutcome:
    """How one of the backend's actions went, reported back to the model."""

    call_id: str  # the vendor's id for the call (tool_use id, call_id), "" if none
    ok: bool
    message: str


@dataclass
class Usage:
    """One model call's (or a sum of calls') consumption."""

    input_tokens: int = 0
    output_tokens: int = 0
    images: int = 0  # screenshots sent
    calls: int = 0
    retries: int = 0  # calls repeated after a rate limit or transient error
    failed_calls: int = 0  # calls that failed for good (a call cut by the time limit too)

    @property
    def succeeded(self) -> int:
        """Calls that got an answer: every call is one of these, a retry or a failure."""
        return max(0, self.calls - self.retries - self.failed_calls)

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.images += other.images
        self.calls += other.calls
        self.retries += other.retries
        self.failed_calls += other.failed_calls


@dataclass
class ModelTurn:
    """One reply of the model: what it said and the actions it asked for, in order."""

    text: str = ""
    actions: list[tuple[str, CoordAction]] = field(default_factory=list)  # (call_id, action)
    usage: Usage = field(default_factory=Usage)
    # The reply could not be read as actions (e.g. malformed JSON): the loop records a failed
    # step with this reason and asks again; the backend shows the reason to the model itself.
    problem: str | None = None


class ComputerBackend(Protocol):
    """One vendor's computer-use interface, spoken with its own SDK.

    The loop calls `begin` once, then alternates `turn` (model call) and performing the
    actions, handing their outcomes and the next screen to the following `turn`. A turn with
    no actions, or with Done/GiveUp, ends the attempt. The backend keeps its own conversation
    (it alone knows the vendor's message shapes) and bounds it by its context policy.
    Model calls go through `call_with_retries` with the turn's own `ModelTurn.usage`, so a
    call that fails for good (ModelCallFailed, which carries that usage) is still counted.
    """

    vendor: str

    def config(self) -> dict[str, Any]:
        """Model, its version, tool version, sampling: pinned in the manifest, no secrets."""
        ...

    async def begin(self, task_text: str, screen: Screen) -> None: ...

    async def turn(self, outcomes: list[ActionOutcome], screen: Screen) -> ModelTurn: ...

    async def close(self) -> None: ...

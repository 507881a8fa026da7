"""Anthropic's `computer` tool calls, translated into the neutral coordinate actions.

One tool call may become several actions ("ctrl+a Delete" is two chords), or none: a call the
backend answers itself (`cursor_position`, `left_mouse_down`) gets its tool_result here, with no
page input. Approximations, since the neutral actions press and release in one go:

- `left_mouse_down` presses nothing yet: it remembers where the button went down; the
  `mouse_move`s that follow are performed as moves and added to a path; `left_mouse_up` then
  performs the whole gesture as one Drag along that path (a Click if the mouse never moved).
- `hold_key` presses the chord and releases it, then pauses for the duration.
- `wait` longer than the harness's longest pause is cut to it.
- `scroll` turns wheel ticks into pixels at SCROLL_TICK_PX per tick.
A call the harness cannot perform is refused (ActionRefused) and told to the model as an error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from endstate.agents.actions import MAX_WAIT_SECONDS
from endstate.agents.computer import (
    ClickAt,
    CoordAction,
    Drag,
    KeyChord,
    MouseButton,
    MoveTo,
    Pause,
    Point,
    Screenshot,
    ScrollAt,
    TypeText,
    Viewport,
)
from endstate.agents.cu_shared import ActionRefused, point_in
from endstate.agents.key_names import xdotool_chords

SCROLL_TICK_PX = 100  # one wheel notch: Chromium scrolls 100 CSS pixels per tick
MAX_KEY_REPEAT = 50
_CLICKS: dict[str, tuple[MouseButton, int]] = {
    "left_click": ("left", 1),
    "right_click": ("right", 1),
    "middle_click": ("middle", 1),
    "double_click": ("left", 2),
    "triple_click": ("left", 3),
}
_SCROLL: dict[str, tuple[int, int]] = {
    "up": (0, -1),
    "down": (0, 1),
    "left": (-1, 0),
    "right": (1, 0),
}


@dataclass
class Translation:
    """The actions to perform for one call, or (if none) the answer the backend gives itself."""

    actions: list[CoordAction] = field(default_factory=list)
    answer: str = ""


@dataclass
class ComputerToolTranslator:
    """Stateful across calls: it knows where the cursor is and whether the button is down."""

    viewport: Viewport
    cursor: tuple[int, int] | None = None
    pressed_path: list[tuple[int, int]] | None = None  # set while the left button is down

    def translate(self, tool_input: dict[str, Any]) -> Translation:
        action = tool_input.get("action")
        handler = self._handlers().get(action) if isinstance(action, str) else None
        if handler is None:
            raise ActionRefused(f"unknown or unsupported computer action {action!r}")
        return handler(tool_input)

    def _handlers(self) -> dict[str, Callable[[dict[str, Any]], Translation]]:
        handlers: dict[str, Callable[[dict[str, Any]], Translation]] = {
            "screenshot": lambda _: Translation([Screenshot()]),
            "mouse_move": self._move,
            "left_click_drag": self._drag,
            "left_mouse_down": self._mouse_down,
            "left_mouse_up": self._mouse_up,
            "scroll": self._scroll,
            "type": self._type,
            "key": self._key,
            "hold_key": self._hold_key,
            "wait": self._wait,
            "cursor_position": self._cursor_position,
        }
        for name in _CLICKS:
            handlers[name] = self._click
        return handlers

    def _point(self, tool_input: dict[str, Any], key: str = "coordinate") -> tuple[int, int]:
        raw = tool_input.get(key)
        if raw is None:
            if self.cursor is None:
                raise ActionRefused(f"no {key} given and the cursor has not been placed yet")
            return self.cursor
        if not isinstance(raw, list | tuple) or len(raw) != 2:
            raise ActionRefused(f"{key} must be [x, y], got {raw!r}")
        return point_in(self.viewport, raw[0], raw[1])

    def _modifiers(self, tool_input: dict[str, Any]) -> list[str]:
        held = tool_input.get("text")
        if held is None or held == "":
            return []
        if not isinstance(held, str):
            raise ActionRefused(f"text (the keys to hold) must be a string, got {held!r}")
        return [key for keys in xdotool_chords(held) for key in keys]

    def _click(self, tool_input: dict[str, Any]) -> Translation:
        button, clicks = _CLICKS[tool_input["action"]]
        x, y = self._point(tool_input)
        self.cursor = (x, y)
        mods = self._modifiers(tool_input)
        return Translation([ClickAt(x=x, y=y, button=button, clicks=clicks, modifiers=mods)])

    def _move(self, tool_input: dict[str, Any]) -> Translation:
        x, y = self._point(tool_input)
        self.cursor = (x, y)
        if self.pressed_path is not None:
            self.pressed_path.append((x, y))
        return Translation([MoveTo(x=x, y=y)])

    def _drag(self, tool_input: dict[str, Any]) -> Translation:
        start = self._point(tool_input, "start_coordinate")
        end = self._point(tool_input)
        self.cursor = end
        path = [Point(x=start[0], y=start[1]), Point(x=end[0], y=end[1])]
        return Translation([Drag(path=path, modifiers=self._modifiers(tool_input))])

    def _mouse_down(self, tool_input: dict[str, Any]) -> Translation:
        if self.cursor is None:
            raise ActionRefused("move the mouse somewhere before pressing its button")
        self.pressed_path = [self.cursor]
        x, y = self.cursor
        return Translation(answer=f"left button down at ({x}, {y})")

    def _mouse_up(self, tool_input: dict[str, Any]) -> Translation:
        path, self.pressed_path = self.pressed_path, None
        if path is None or self.cursor is None:
            raise ActionRefused("the left mouse button is not down")
        if path[-1] != self.cursor:
            path.append(self.cursor)
        if len(set(path)) == 1:
            return Translation([ClickAt(x=path[0][0], y=path[0][1])])
        return Translation([Drag(path=[Point(x=x, y=y) for x, y in path])])

    def _scroll(self, tool_input: dict[str, Any]) -> Translation:
        direction = tool_input.get("scroll_direction")
        amount = tool_input.get("scroll_amount", 1)
        if direction not in _SCROLL:
            raise ActionRefused(f"scroll_direction must be up, down, left or right: {direction!r}")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise ActionRefused(f"scroll_amount must be a whole number of ticks, got {amount!r}")
        x, y = self._point(tool_input)
        self.cursor = (x, y)
        sx, sy = _SCROLL[direction]
        dx, dy = sx * amount * SCROLL_TICK_PX, sy * amount * SCROLL_TICK_PX
        mods = self._modifiers(tool_input)
        return Translation([ScrollAt(x=x, y=y, dx=dx, dy=dy, modifiers=mods)])

    def _type(self, tool_input: dict[str, Any]) -> Translation:
        return Translation([TypeText(text=_text(tool_input, "text"))])

    def _key(self, tool_input: dict[str, Any]) -> Translation:
        repeat = tool_input.get("repeat") or 1
        if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
            raise ActionRefused(f"repeat must be a positive whole number, got {repeat!r}")
        chords = xdotool_chords(_text(tool_input, "text"))
        if not chords:
            raise ActionRefused("key needs the key to press in text")
        repeated = chords * min(repeat, MAX_KEY_REPEAT)
        return Translation([KeyChord(keys=keys) for keys in repeated])

    def _hold_key(self, tool_input: dict[str, Any]) -> Translation:
        chords = xdotool_chords(_text(tool_input, "text"))
        if not chords:
            raise ActionRefused("hold_key needs the key to hold in text")
        actions: list[CoordAction] = [KeyChord(keys=keys) for keys in chords]
        seconds = _seconds(tool_input)
        if seconds > 0:
            actions.append(Pause(seconds=seconds))
        return Translation(actions)

    def _wait(self, tool_input: dict[str, Any]) -> Translation:
        return Translation([Pause(seconds=_seconds(tool_input) or 1.0)])

    def _cursor_position(self, tool_input: dict[str, Any]) -> Translation:
        if self.cursor is None:
            return Translation(answer="the cursor has not been placed yet")
        return Translation(answer=f"X={self.cursor[0]},Y={self.cursor[1]}")


def _text(tool_input: dict[str, Any], key: str) -> str:
    value = tool_input.get(key)
    if not isinstance(value, str):
        raise ActionRefused(f"{tool_input.get('action')} needs {key} as a string, got {value!r}")
    return value


def _seconds(tool_input: dict[str, Any]) -> float:
    value = tool_input.get("duration", 1)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ActionRefused(f"duration must be a number of seconds, got {value!r}")
    return min(float(value), MAX_WAIT_SECONDS)

"""OpenAI's `computer_call` actions, translated into the neutral coordinate actions.

The mapping is nearly one to one: click (left/right; "wheel" is the middle button),
double_click, drag along a path, keypress (a chord), move, screenshot, scroll (pixels already),
type and wait (WAIT_SECONDS, the call has no duration). Keys held during a click, drag or scroll
become the action's modifiers; keys held while merely moving are dropped (a hover needs none).
The browser's back and forward mouse buttons have no neutral action and are refused, as is any
action type this module does not know; the refusal reaches the model, never a crash.
"""

from __future__ import annotations

from typing import Any

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
from endstate.agents.key_names import chord

WAIT_SECONDS = 1.0
_BUTTONS: dict[str, MouseButton] = {"left": "left", "right": "right", "wheel": "middle"}


def translate(action: Any, viewport: Viewport) -> CoordAction:
    """One computer_call action (an SDK model or a plain dict) as a neutral action."""
    fields: dict[str, Any] = action if isinstance(action, dict) else action.model_dump()
    kind = fields.get("type")
    if kind == "screenshot":
        return Screenshot()
    if kind == "wait":
        return Pause(seconds=WAIT_SECONDS)
    if kind == "type":
        text = fields.get("text")
        if not isinstance(text, str):
            raise ActionRefused(f"type needs text as a string, got {text!r}")
        return TypeText(text=text)
    if kind == "keypress":
        keys = _keys(fields.get("keys"))
        if not keys:
            raise ActionRefused("keypress needs at least one key")
        return KeyChord(keys=chord(keys))
    if kind in ("click", "double_click"):
        return _click(fields, viewport, kind)
    if kind == "move":
        x, y = point_in(viewport, fields.get("x"), fields.get("y"))
        return MoveTo(x=x, y=y)
    if kind == "scroll":
        x, y = point_in(viewport, fields.get("x"), fields.get("y"))
        dx, dy = fields.get("scroll_x", 0), fields.get("scroll_y", 0)
        if not all(isinstance(d, int) and not isinstance(d, bool) for d in (dx, dy)):
            raise ActionRefused(f"scroll_x and scroll_y must be whole pixels, got {dx!r}, {dy!r}")
        held = chord(_keys(fields.get("keys")))
        return ScrollAt(x=x, y=y, dx=dx, dy=dy, modifiers=held)
    if kind == "drag":
        return _drag(fields, viewport)
    raise ActionRefused(f"unknown or unsupported computer action {kind!r}")


def _click(fields: dict[str, Any], viewport: Viewport, kind: str) -> ClickAt:
    x, y = point_in(viewport, fields.get("x"), fields.get("y"))
    button = _BUTTONS.get(str(fields.get("button", "left")))
    if button is None:
        raise ActionRefused(f"mouse button {fields.get('button')!r} is not available here")
    clicks = 2 if kind == "double_click" else 1
    return ClickAt(
        x=x, y=y, button=button, clicks=clicks, modifiers=chord(_keys(fields.get("keys")))
    )


def _drag(fields: dict[str, Any], viewport: Viewport) -> Drag:
    raw = fields.get("path")
    if not isinstance(raw, list) or len(raw) < 2:
        raise ActionRefused(f"drag needs a path of at least two points, got {raw!r}")
    path: list[Point] = []
    for point in raw:
        if not isinstance(point, dict):
            raise ActionRefused(f"a drag point must be {{x, y}}, got {point!r}")
        x, y = point_in(viewport, point.get("x"), point.get("y"))
        path.append(Point(x=x, y=y))
    return Drag(path=path, modifiers=chord(_keys(fields.get("keys"))))


def _keys(raw: Any) -> list[str]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(k, str) and k for k in raw):
        raise ActionRefused(f"keys must be a list of key names, got {raw!r}")
    return list(raw)

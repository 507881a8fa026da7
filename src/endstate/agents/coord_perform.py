"""The executor of the coordinate action space: real mouse and keyboard input at pixels.

Every vendor's computer-use tool ends here, so all of them are held to one input channel:
Playwright's mouse and keyboard on the harness page, nothing scripted into the page.
Failures come back as results (ok=False and why), never as exceptions; a coordinate outside
the pinned viewport is refused rather than clipped, since the model misread its screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from endstate.agents.actions import Done, GiveUp
from endstate.agents.computer import (
    ClickAt,
    CoordAction,
    Drag,
    KeyChord,
    MoveTo,
    Pause,
    Point,
    Screenshot,
    ScrollAt,
    TypeText,
    Viewport,
)
from endstate.agents.key_names import chord as key_chord
from endstate.agents.key_names import playwright_key
from endstate.agents.perform import ActionResult, ActOptions, first_line, follow_new_tab

SETTLE_GRACE = 0.1  # seconds for a navigation the input started to begin
SETTLE_TIMEOUT_MS = 3000.0  # at most this long for it to load
DRAG_STEPS = 5  # intermediate mouse moves between two points of a drag


def normalize_key(name: str) -> str:
    """One key as Playwright names it, from a vendor's or xdotool's name ("ctrl", "Return",
    "pgdn", "Page_Down", "F5"). Single characters and unknown names pass through unchanged."""
    return playwright_key(name)


def normalize_keys(chord: str | list[str]) -> list[str]:
    """A chord's keys in press order: "ctrl+a" or ["ctrl", "a"] -> ["Control", "a"]."""
    return key_chord(chord if isinstance(chord, list) else _split_chord(chord))


def _split_chord(chord: str) -> list[str]:
    if chord == "+" or "+" not in chord:
        return [chord]
    parts = chord.split("+")
    # A trailing empty part means the chord's last key is "+" itself ("ctrl++").
    if parts[-1] == "" and len(parts) > 1:
        parts = [*parts[:-2], "+"] if parts[-2] == "" else [*parts[:-1], "+"]
    return [p for p in parts if p]


def _outside(points: list[tuple[int, int]], viewport: Viewport) -> str | None:
    for x, y in points:
        if x >= viewport.width or y >= viewport.height:
            return (
                f"({x}, {y}) is outside the {viewport.width}x{viewport.height} viewport "
                f"(x must be below {viewport.width}, y below {viewport.height})"
            )
    return None


def _points(action: CoordAction) -> list[tuple[int, int]]:
    if isinstance(action, ClickAt | MoveTo | ScrollAt):
        return [(action.x, action.y)]
    if isinstance(action, Drag):
        return [(p.x, p.y) for p in action.path]
    return []


async def perform_coord(
    page: Page, action: CoordAction, viewport: Viewport, options: ActOptions | None = None
) -> ActionResult:
    """Do one coordinate action with real input. Failures come back as ok=False."""
    options = options or ActOptions()
    refused = _outside(_points(action), viewport)
    if refused is not None:
        return ActionResult(False, f"{action.type}: {refused}")
    popups: list[Page] = []

    def opened(popup: Page) -> None:
        popups.append(popup)

    page.on("popup", opened)
    try:
        expect_tab = isinstance(action, ClickAt) and await _opens_tab_at(page, action.x, action.y)
        result = await _dispatch(page, action)
        if isinstance(action, ClickAt | KeyChord | TypeText | Drag):
            await _settle(page)
        # A new tab's event can trail the click; a link that targets one is waited for.
        deadline = time.monotonic() + (options.navigation_timeout_ms / 1000 if expect_tab else 0)
        while expect_tab and not popups and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return await follow_new_tab(page, popups, result, options)
    except PlaywrightError as exc:
        return ActionResult(False, f"{action.type}: {first_line(exc)}")
    finally:
        page.remove_listener("popup", opened)


_OPENS_TAB_AT = """([x, y]) => {
  const el = document.elementFromPoint(x, y);
  const link = el && el.closest('a[target], area[target]');
  return !!link && !['', '_self', '_top', '_parent'].includes(link.target.toLowerCase());
}"""


async def _opens_tab_at(page: Page, x: int, y: int) -> bool:
    """Whether a click at (x, y) follows a link into another tab (read, never changed)."""
    try:
        return bool(await page.evaluate(_OPENS_TAB_AT, [x, y]))
    except PlaywrightError:
        return False


async def _dispatch(page: Page, action: CoordAction) -> ActionResult:
    """Do the action, with any keys it asks held down (shift-click, ctrl-scroll) pressed
    before it and released after it, whatever happens."""
    held: list[str] = []
    try:
        for key in getattr(action, "modifiers", []):
            await page.keyboard.down(key)
            held.append(key)
        result = await _act(page, action)
    finally:
        for key in reversed(held):
            with contextlib.suppress(PlaywrightError):
                await page.keyboard.up(key)
    if held:
        result.message += f" holding {'+'.join(held)}"
    return result


async def _act(page: Page, action: CoordAction) -> ActionResult:
    mouse, keyboard = page.mouse, page.keyboard
    match action:
        case ClickAt(x=x, y=y, button=button, clicks=clicks):
            await mouse.click(x, y, button=button, click_count=clicks)
            what = {1: "clicked", 2: "double-clicked", 3: "triple-clicked"}[clicks]
            side = "" if button == "left" else f" ({button} button)"
            return ActionResult(True, f"{what} at ({x}, {y}){side}")
        case MoveTo(x=x, y=y):
            await mouse.move(x, y)
            return ActionResult(True, f"moved the mouse to ({x}, {y})")
        case Drag(path=path):
            return await _drag(page, path)
        case ScrollAt(x=x, y=y, dx=dx, dy=dy):
            await mouse.move(x, y)
            await mouse.wheel(dx, dy)
            await _next_frame(page)
            return ActionResult(True, f"scrolled by ({dx}, {dy}) at ({x}, {y})")
        case TypeText(text=text):
            await keyboard.type(text)
            return ActionResult(True, f"typed {len(text)} character(s)")
        case KeyChord(keys=keys):
            return await _chord(page, keys)
        case Pause(seconds=seconds):
            await asyncio.sleep(seconds)
            return ActionResult(True, f"waited {seconds:g}s")
        case Screenshot():
            return ActionResult(True, "a fresh screenshot follows")
        case Done(message=message) | GiveUp(message=message):
            return ActionResult(True, f"{action.type}: {message}")
    raise AssertionError(f"unhandled action {action.type!r}")  # pragma: no cover


async def _drag(page: Page, path: list[Point]) -> ActionResult:
    mouse = page.mouse
    await mouse.move(path[0].x, path[0].y)
    await mouse.down()
    try:
        for point in path[1:]:
            await mouse.move(point.x, point.y, steps=DRAG_STEPS)
    finally:
        await mouse.up()
    start, end = path[0], path[-1]
    return ActionResult(True, f"dragged from ({start.x}, {start.y}) to ({end.x}, {end.y})")


async def _chord(page: Page, keys: list[str]) -> ActionResult:
    """Press the keys in order, release them in reverse: even when one is unknown, nothing
    is left held down."""
    held: list[str] = []
    try:
        for key in keys:
            await page.keyboard.down(key)
            held.append(key)
    finally:
        for key in reversed(held):
            with contextlib.suppress(PlaywrightError):
                await page.keyboard.up(key)
    return ActionResult(True, f"pressed {'+'.join(keys)}")


async def _next_frame(page: Page) -> None:
    """Wheel input is applied by the browser asynchronously: wait until it has painted."""
    with contextlib.suppress(PlaywrightError):
        await page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )


async def _settle(page: Page) -> None:
    """Let a navigation the input started get going and load, bounded: a page that keeps
    loading is the model's next screen, not a reason to stall the attempt."""
    await asyncio.sleep(SETTLE_GRACE)
    with contextlib.suppress(PlaywrightError):
        await page.wait_for_load_state("domcontentloaded", timeout=SETTLE_TIMEOUT_MS)

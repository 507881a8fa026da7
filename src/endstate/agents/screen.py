"""What a computer-use model is shown: the pinned viewport as a PNG, and optionally more.

Pixels are what the model acts on, so the screenshot is always of the viewport alone (never
the full page): a coordinate the model reads off it is a coordinate the mouse can reach. The
accessibility text (the same snapshot the `llm` agent reads) can ride along, and so can
set-of-marks: visible interactive elements outlined and numbered on the screenshot, with
their role, name and box returned beside it. The marks overlay exists only for the instant
of the screenshot; the page the agent acts on is never left changed.
"""

from __future__ import annotations

import contextlib
from typing import Any, Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from endstate.agents.computer import Screen, Viewport
from endstate.agents.observe import DEFAULT_SNAPSHOT_CHARS, observe, render

Observation = Literal["screenshot", "accessibility", "both"]
OBSERVATIONS: tuple[Observation, ...] = ("screenshot", "accessibility", "both")
OVERLAY_ID = "__endstate_marks__"
SCREENSHOT_TIMEOUT_MS = 10_000

# Outlines and numbers every visible interactive element inside the viewport; returns their
# facts in mark order. Everything it draws lives under one fixed, click-through container.
_DRAW_MARKS = """(overlayId) => {
  const selector = [
    'a[href]', 'button', 'input:not([type=hidden])', 'select', 'textarea', 'summary',
    '[role=button]', '[role=link]', '[role=checkbox]', '[role=radio]', '[role=switch]',
    '[role=tab]', '[role=option]', '[role=menuitem]', '[role=combobox]', '[role=textbox]',
    '[role=searchbox]', '[role=slider]', '[role=spinbutton]', '[role=treeitem]',
  ].join(',');
  const implicit = (el) => {
    const tag = el.tagName.toLowerCase();
    if (tag === 'a') return 'link';
    if (tag === 'select') return el.multiple ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'summary') return 'button';
    if (tag === 'input') {
      const type = (el.type || 'text').toLowerCase();
      if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
      if (['checkbox', 'radio'].includes(type)) return type;
      if (type === 'range') return 'slider';
      if (type === 'number') return 'spinbutton';
      if (type === 'search') return 'searchbox';
      return 'textbox';
    }
    return tag;
  };
  const clean = (s) => (s || '').replace(/\\s+/g, ' ').trim().slice(0, 80);
  const byIds = (ids) => ids.split(/\\s+/).map((id) => {
    const el = document.getElementById(id);
    return el ? el.textContent : '';
  }).join(' ');
  const nameOf = (el) => {
    if (el.getAttribute('aria-label')) return clean(el.getAttribute('aria-label'));
    if (el.getAttribute('aria-labelledby')) return clean(byIds(el.getAttribute('aria-labelledby')));
    if (el.labels && el.labels.length) return clean(el.labels[0].textContent);
    const text = clean(el.innerText || el.textContent);
    if (text) return text;
    return clean(el.value || el.getAttribute('placeholder') || el.getAttribute('title')
      || el.getAttribute('alt') || '');
  };
  const vw = window.innerWidth, vh = window.innerHeight;
  const overlay = document.createElement('div');
  overlay.id = overlayId;
  overlay.setAttribute('aria-hidden', 'true');
  overlay.style.cssText = 'position:fixed;left:0;top:0;width:0;height:0;z-index:2147483647;'
    + 'pointer-events:none;';
  const marks = [];
  for (const el of document.querySelectorAll(selector)) {
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    if (r.right <= 0 || r.bottom <= 0 || r.left >= vw || r.top >= vh) continue;
    const x = Math.max(0, Math.round(r.left)), y = Math.max(0, Math.round(r.top));
    const w = Math.round(Math.min(r.right, vw)) - x, h = Math.round(Math.min(r.bottom, vh)) - y;
    const n = marks.length + 1;
    marks.push({n, role: el.getAttribute('role') || implicit(el), name: nameOf(el),
                x, y, width: w, height: h});
    const box = document.createElement('div');
    box.style.cssText = `position:fixed;left:${x}px;top:${y}px;width:${w}px;height:${h}px;`
      + 'box-sizing:border-box;border:2px solid #e6007a;';
    const tag = document.createElement('div');
    tag.textContent = String(n);
    tag.style.cssText = `position:fixed;left:${x}px;top:${Math.max(0, y - 14)}px;`
      + 'background:#e6007a;color:#fff;font:bold 11px/14px monospace;padding:0 3px;';
    overlay.append(box, tag);
  }
  document.documentElement.appendChild(overlay);
  return marks;
}"""
_REMOVE_MARKS = "(overlayId) => { document.getElementById(overlayId)?.remove(); }"


async def take_screen(
    page: Page,
    viewport: Viewport,
    observation: Observation = "screenshot",
    marks: bool = False,
    snapshot_chars: int = DEFAULT_SNAPSHOT_CHARS,
) -> Screen:
    """The page as the model is to see it. A page that cannot be drawn still yields a Screen
    (its accessibility note or a bare URL): looking never ends an attempt."""
    accessibility = None
    if observation in ("accessibility", "both"):
        accessibility = render(await observe(page, snapshot_chars))
    found: dict[int, dict[str, Any]] | None = None
    png: bytes | None = None
    if marks:
        found = await _draw_marks(page)
    try:
        if observation in ("screenshot", "both"):
            png = await _screenshot(page)
    finally:
        if marks:
            with contextlib.suppress(PlaywrightError):
                await page.evaluate(_REMOVE_MARKS, OVERLAY_ID)
    return Screen(page.url, viewport, png=png, accessibility=accessibility, marks=found)


async def _draw_marks(page: Page) -> dict[int, dict[str, Any]]:
    try:
        drawn: list[dict[str, Any]] = await page.evaluate(_DRAW_MARKS, OVERLAY_ID)
    except PlaywrightError:
        return {}  # a page mid-navigation has nothing to mark yet
    return {int(m.pop("n")): m for m in drawn}


async def _screenshot(page: Page) -> bytes | None:
    """The viewport's pixels; a page caught mid-navigation (the shot fails as its document
    is replaced) is shot once more when the new one has loaded."""
    for tries_left in (1, 0):
        try:
            # caret="initial": hiding the caret (Playwright's default) leaves style="" on
            # every field.
            return await page.screenshot(
                type="png", full_page=False, caret="initial", timeout=SCREENSHOT_TIMEOUT_MS
            )
        except PlaywrightError:
            if not tries_left or page.is_closed():
                return None
            with contextlib.suppress(PlaywrightError):
                await page.wait_for_load_state("load", timeout=SCREENSHOT_TIMEOUT_MS)
    return None


def render_marks(marks: dict[int, dict[str, Any]]) -> str:
    """Marks as text lines a model can act on: number, role, name, and the box's centre."""
    lines = []
    for n, m in sorted(marks.items()):
        cx, cy = m["x"] + m["width"] // 2, m["y"] + m["height"] // 2
        lines.append(f"[{n}] {m['role']} {m['name']!r} at ({cx}, {cy})")
    return "\n".join(lines)

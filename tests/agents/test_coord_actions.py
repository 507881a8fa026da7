"""Coordinate actions and what the model is shown, on real pages in real Chromium."""

from __future__ import annotations

import struct
from typing import Any

from playwright.async_api import Page

from endstate.agents.computer import (
    ClickAt,
    Drag,
    KeyChord,
    MoveTo,
    Point,
    ScrollAt,
    TypeText,
    Viewport,
)
from endstate.agents.coord_perform import normalize_key, normalize_keys, perform_coord
from endstate.agents.screen import OVERLAY_ID, render_marks, take_screen

from .browser_harness import Browser
from .form_site import FormSite

VIEW = Viewport(1280, 800)

PAGE = """<!doctype html><html><head><style>
  body { margin: 0; height: 3000px; font: 16px sans-serif; }
  #press { position: absolute; left: 40px; top: 40px; width: 120px; height: 40px; }
  #name { position: absolute; left: 40px; top: 120px; width: 300px; }
  #handle { position: absolute; left: 100px; top: 300px; width: 40px; height: 40px;
            background: #39c; }
  #box { position: absolute; left: 600px; top: 100px; width: 300px; height: 200px;
         overflow: auto; }
  #box div { height: 2000px; }
</style></head><body>
<button id="press">Press me</button>
<input id="name" aria-label="Name">
<div id="handle"></div>
<div id="box"><div>inner</div></div>
<script>
  window.events = [];
  const press = document.getElementById('press');
  press.addEventListener('click', e => events.push('click:' + e.detail + ':' + e.isTrusted));
  press.addEventListener('dblclick', e => events.push('dblclick:' + e.isTrusted));
  press.addEventListener('contextmenu', e => { e.preventDefault(); events.push('context'); });
  const handle = document.getElementById('handle');
  let grab = null;
  handle.addEventListener('mousedown', e => { grab = [e.clientX - handle.offsetLeft,
                                                      e.clientY - handle.offsetTop]; });
  document.addEventListener('mousemove', e => { if (grab) {
    handle.style.left = (e.clientX - grab[0]) + 'px'; handle.style.top = (e.clientY - grab[1]) + 'px';
  }});
  document.addEventListener('mouseup', () => { if (grab) { events.push('dropped'); grab = null; } });
</script></body></html>"""


async def _ready(page: Page) -> None:
    await page.set_viewport_size({"width": VIEW.width, "height": VIEW.height})
    await page.set_content(PAGE)


async def _centre(page: Page, selector: str) -> tuple[int, int]:
    box = await page.locator(selector).bounding_box()
    assert box is not None
    return round(box["x"] + box["width"] / 2), round(box["y"] + box["height"] / 2)


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def test_clicks_double_clicks_and_right_clicks_land_where_measured(browser: Browser) -> None:
    async def go(page: Page) -> tuple[list[str], list[str]]:
        await _ready(page)
        x, y = await _centre(page, "#press")
        messages = []
        for action in (
            ClickAt(x=x, y=y),
            ClickAt(x=x, y=y, clicks=2),
            ClickAt(x=x, y=y, button="right"),
            ClickAt(x=x, y=y + 200),  # nowhere near the button
        ):
            result = await perform_coord(page, action, VIEW)
            assert result.ok, result.message
            messages.append(result.message)
        return await page.evaluate("window.events"), messages

    events, messages = browser.run(go)
    # Real, trusted input: the double click is two clicks (detail 1 and 2) and a dblclick.
    assert events == ["click:1:true", "click:1:true", "click:2:true", "dblclick:true", "context"]
    assert messages[1].startswith("double-clicked at") and "right button" in messages[2]


def test_typing_and_a_key_chord_edit_the_focused_field(browser: Browser) -> None:
    async def go(page: Page) -> str:
        await _ready(page)
        x, y = await _centre(page, "#name")
        for action in (
            ClickAt(x=x, y=y),
            TypeText(text="Dana Reyes"),
            KeyChord(keys=normalize_keys("ctrl+a")),
            TypeText(text="Pat Lee"),
            KeyChord(keys=[normalize_key("Return")]),
        ):
            result = await perform_coord(page, action, VIEW)
            assert result.ok, result.message
        return await page.input_value("#name")

    assert browser.run(go) == "Pat Lee"  # select-all replaced the first text


def test_drag_moves_the_handle_along_the_path(browser: Browser) -> None:
    async def go(page: Page) -> tuple[tuple[int, int], list[str]]:
        await _ready(page)
        x, y = await _centre(page, "#handle")
        path = [Point(x=x, y=y), Point(x=x + 100, y=y + 20), Point(x=x + 250, y=y + 50)]
        result = await perform_coord(page, Drag(path=path), VIEW)
        assert result.ok, result.message
        return await _centre(page, "#handle"), await page.evaluate("window.events")

    (cx, cy), events = browser.run(go)
    assert (cx, cy) == (120 + 250, 320 + 50) and events == ["dropped"]


def test_scroll_scrolls_what_is_under_the_pointer(browser: Browser) -> None:
    async def go(page: Page) -> tuple[int, int, int]:
        await _ready(page)
        bx, by = await _centre(page, "#box")
        assert (await perform_coord(page, ScrollAt(x=bx, y=by, dy=300), VIEW)).ok
        inner = await page.evaluate("document.getElementById('box').scrollTop")
        window_after_box = await page.evaluate("window.scrollY")
        assert (await perform_coord(page, ScrollAt(x=20, y=600, dy=500), VIEW)).ok
        return inner, window_after_box, await page.evaluate("window.scrollY")

    inner, window_after_box, window_y = browser.run(go)
    assert inner == 300 and window_after_box == 0 and window_y == 500


def test_coordinates_outside_the_viewport_are_refused_not_clipped(browser: Browser) -> None:
    async def go(page: Page) -> tuple[list[Any], list[str]]:
        await _ready(page)
        results = [
            await perform_coord(page, ClickAt(x=1280, y=40), VIEW),
            await perform_coord(page, MoveTo(x=10, y=800), VIEW),
            await perform_coord(page, Drag(path=[Point(x=120, y=320), Point(x=2000, y=320)]), VIEW),
            await perform_coord(page, KeyChord(keys=["NoSuchKey"]), VIEW),
        ]
        return results, await page.evaluate("window.events")

    results, events = browser.run(go)
    assert [r.ok for r in results] == [False, False, False, False]
    assert "(1280, 40) is outside the 1280x800 viewport" in results[0].message
    assert "(10, 800) is outside" in results[1].message
    assert "(2000, 320) is outside" in results[2].message
    assert results[3].message.startswith("key:")  # an unknown key is a result, not a crash
    assert events == []  # nothing was pressed, and the drag never started


def test_key_names_from_vendors_and_xdotool_become_playwright_names() -> None:
    assert [normalize_key(k) for k in ("ctrl", "cmd", "Return", "enter", "esc")] == [
        "Control",
        "Meta",
        "Enter",
        "Enter",
        "Escape",
    ]
    assert [normalize_key(k) for k in ("pgdn", "Page_Down", "Prior", "f5", "a", "Tab")] == [
        "PageDown",
        "PageDown",
        "PageUp",
        "F5",
        "a",
        "Tab",
    ]
    assert normalize_keys("ctrl+shift+t") == ["Control", "Shift", "t"]
    assert normalize_keys("ctrl++") == ["Control", "+"]
    assert normalize_keys(["alt", "Left"]) == ["Alt", "ArrowLeft"]


def test_a_link_to_a_new_tab_is_followed_in_the_same_page(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> tuple[str, str, int]:
        await page.set_viewport_size({"width": VIEW.width, "height": VIEW.height})
        await page.goto(f"{site.url}/form")
        await page.evaluate(
            """() => { const a = document.createElement('a'); a.href = '/other';
                a.target = '_blank'; a.textContent = 'Elsewhere';
                a.style = 'position:fixed;left:5px;top:5px;font-size:30px';
                document.body.prepend(a); }"""
        )
        x, y = await _centre(page, "text=Elsewhere")
        result = await perform_coord(page, ClickAt(x=x, y=y), VIEW)
        return result.message, page.url, len(page.context.pages)

    message, url, pages = browser.run(go)
    assert url.endswith("/other") and pages == 1
    assert "opened a new tab; followed here" in message


def test_set_of_marks_numbers_the_controls_and_leaves_the_page_as_it_was(
    browser: Browser, site: FormSite
) -> None:
    async def go(page: Page) -> tuple[Any, ...]:
        await page.set_viewport_size({"width": VIEW.width, "height": VIEW.height})
        await page.goto(f"{site.url}/form")
        before = await page.content()
        plain = await take_screen(page, VIEW)
        marked = await take_screen(page, VIEW, "both", marks=True)
        after = await page.content()
        submit = await page.get_by_role("button", name="Submit request").bounding_box()
        overlay = await page.locator(f"#{OVERLAY_ID}").count()
        return before, after, plain, marked, submit, overlay

    before, after, plain, marked, submit, overlay = browser.run(go)
    assert after == before and overlay == 0  # the overlay lived only for the screenshot
    assert plain.marks is None and plain.accessibility is None
    assert _png_size(plain.png) == _png_size(marked.png) == (1280, 800)
    assert marked.png != plain.png  # the marks are drawn on what the model sees
    assert marked.accessibility is not None and 'textbox "Patient name"' in marked.accessibility
    marks = marked.marks
    assert list(marks) == list(range(1, len(marks) + 1))
    by_name = {(m["role"], m["name"]): m for m in marks.values()}
    assert ("textbox", "Patient name") in by_name and ("combobox", "Visit type") in by_name
    assert ("checkbox", "Urgent") in by_name and ("link", "Download referral letter") in by_name
    assert ("button", "Secret action") not in by_name  # hidden elements are not marked
    box = by_name[("button", "Submit request")]
    assert abs(box["x"] - submit["x"]) <= 1 and abs(box["y"] - submit["y"]) <= 1
    assert abs(box["width"] - submit["width"]) <= 1
    assert "[1] " in render_marks(marks)


def test_an_accessibility_only_screen_has_no_pixels(browser: Browser, site: FormSite) -> None:
    screen = browser.run(lambda page: take_screen(page, VIEW, "accessibility"), f"{site.url}/form")
    assert screen.png is None and screen.marks is None
    assert screen.accessibility and 'heading "Referral form"' in screen.accessibility

"""A rehearsal that turns a task's clicks into pixel coordinates, for computer-use doubles.

A vendor double cannot read a screenshot, so the test measures where each control is: it walks
the same task once in a real Chromium at the pinned viewport, on an episode of its own, and
records every step as the coordinate action a computer-use model would send (scrolling first
when a control lies below the fold). Pages are laid out the same way in every episode of the
same world, so the measured actions land on the same controls in the attempt under test.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from playwright.async_api import Locator, Page, async_playwright

from endstate.agents.computer import ClickAt, CoordAction, ScrollAt, TypeText, Viewport
from endstate.browser import launch_options
from endstate.envs import EmbeddedSuite
from endstate.envs.world import DEFAULT_SEED, generate_world

VIEWPORT = Viewport(1280, 800)
SCROLL_STEP = 100  # pixels; one tick of Anthropic's scroll


@dataclass(frozen=True)
class Click:
    role: str
    name: str
    exact: bool = True


@dataclass(frozen=True)
class Type:
    text: str


Step = Click | Type


def note_and_clear(referral: str) -> list[Step]:
    """Find the referral on the worklist, save a determination note on it, clear it."""
    world = generate_world(DEFAULT_SEED)
    patient = world.patient(next(r.mrn for r in world.referrals if r.id == referral))
    return [
        Click("textbox", "Search (patient, MRN, referral, department)"),
        Type(referral),
        Click("button", "Search"),
        Click("link", f"{patient.last}, {patient.first}"),
        Click("tab", "Communications"),
        Click("textbox", "Subject"),
        Type("Prior auth determination"),
        Click("button", "Category", exact=False),
        Click("option", "Authorization determination"),
        Click("textbox", "Note"),
        Type("No new authorization is needed for the scheduled services; clearing."),
        Click("button", "Save note"),
        Click("button", "Clear from worklist"),
    ]


def rehearse(steps: list[Step], system: str = "ehr") -> list[CoordAction]:
    """The steps as coordinate actions, measured on a fresh episode of the default world."""
    suite = EmbeddedSuite.start(world_seed=DEFAULT_SEED)
    try:
        episode = suite.open_episode()
        return asyncio.run(_walk(episode.start_urls[system], steps))
    finally:
        suite.stop()


async def _walk(start: str, steps: list[Step]) -> list[CoordAction]:
    out: list[CoordAction] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(**launch_options(headless=True))
        size = {"width": VIEWPORT.width, "height": VIEWPORT.height}
        page = await (await browser.new_context(viewport=size)).new_page()  # type: ignore[arg-type]
        await page.goto(start)
        for step in steps:
            if isinstance(step, Type):
                out.append(TypeText(text=step.text))
                await page.keyboard.type(step.text)
                continue
            target = page.get_by_role(step.role, name=step.name, exact=step.exact)  # type: ignore[arg-type]
            out += await _click(page, target)
        await browser.close()
    return out


async def _click(page: Page, target: Locator) -> list[CoordAction]:
    """Scroll the control into the viewport by wheel, as a model would, then click its middle."""
    out: list[CoordAction] = []
    await target.wait_for(state="visible")
    box = await target.bounding_box()
    assert box is not None, "the control has no box"
    while box["y"] + box["height"] > VIEWPORT.height - 20:
        out.append(ScrollAt(x=640, y=400, dy=SCROLL_STEP * 3))
        await page.mouse.move(640, 400)
        await page.mouse.wheel(0, SCROLL_STEP * 3)
        await page.wait_for_timeout(100)
        box = await target.bounding_box()
        assert box is not None
    x, y = int(box["x"] + box["width"] / 2), int(box["y"] + box["height"] / 2)
    out.append(ClickAt(x=x, y=y))
    await page.mouse.click(x, y)
    await page.wait_for_load_state("domcontentloaded")
    return out

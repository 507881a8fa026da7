"""The run's one Chromium, shared by in-process agents (a context per attempt), that outlives a
crash: a dead browser is relaunched for the attempts after it, at most `MAX_RELAUNCHES` times.

An attempt the crash interrupted is not the agent's failure; the runner records it as
unmeasurable with that reason (`lost_during`), and a browser that cannot be brought back makes
each later attempt unmeasurable in the same way rather than stopping the run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Playwright is imported only by runs that need a browser
    from playwright.async_api import Browser, BrowserContext, Page, Playwright

MAX_RELAUNCHES = 3
# A context and its page take Chromium milliseconds; a browser that has made none in this long
# is wedged, and the attempt waiting for it is lost to infrastructure rather than the run hung.
PAGE_LIMIT_S = 60.0
CLOSE_LIMIT_S = 10.0


class BrowserLost(RuntimeError):
    """The shared browser died and could not be relaunched."""


class SharedBrowser:
    def __init__(self, playwright: Playwright, browser: Browser, headless: bool) -> None:
        self._playwright = playwright
        self._browser = browser
        self._headless = headless
        self._lock = asyncio.Lock()
        self.generation = 0  # bumped at each relaunch: an attempt begun on an older one lost it
        self.relaunches = 0

    @property
    def version(self) -> str:
        return self._browser.version

    def alive(self, generation: int) -> bool:
        """Whether the browser an attempt began on (its generation) is still the one, alive."""
        return generation == self.generation and self._browser.is_connected()

    async def new_context(self, **options: Any) -> tuple[BrowserContext, int]:
        """A fresh context and the generation it belongs to; relaunches a dead browser first."""
        async with self._lock:
            if not self._browser.is_connected():
                if self.relaunches >= MAX_RELAUNCHES:
                    raise BrowserLost(
                        f"the shared browser died {self.relaunches + 1} times; not relaunched"
                    )
                self._browser = await _launch(self._playwright, self._headless)
                self.relaunches += 1
                self.generation += 1
            generation = self.generation
        return await self._browser.new_context(**options), generation

    async def close(self) -> None:
        if self._browser.is_connected():
            await self._browser.close()


FreshPage = tuple["BrowserContext", int, "Page"]  # a new context, its generation, its page


class NoPage(RuntimeError):
    """The shared browser made no context and page within `PAGE_LIMIT_S`."""


async def fresh_page(browser: SharedBrowser) -> FreshPage:
    """A new context on the shared browser, and one page in it (`NoPage` if it is wedged)."""
    limit = asyncio.timeout(PAGE_LIMIT_S)
    try:
        async with limit:
            return await _context_and_page(browser)
    except TimeoutError as exc:
        if not limit.expired():  # a timeout of something else's: not this limit
            raise
        raise NoPage(f"the browser made no page within {PAGE_LIMIT_S:g}s") from exc


async def _context_and_page(browser: SharedBrowser) -> FreshPage:
    context, generation = await browser.new_context()
    try:
        return context, generation, await context.new_page()
    except BaseException:
        await closed_quietly(context)
        raise


class PagesAhead:
    """A worker's next page, made while the attempt before it runs.

    A context and its first page cost Chromium tens of milliseconds (a renderer starts); a
    worker makes its next attempt's while the current attempt's agent works, so an attempt
    starts on a page that is there. Each is still fresh and for one attempt only; one made
    on a browser that has died since is closed and made again. A run cancelled meanwhile
    leaves it to the browser's own close."""

    def __init__(self, browser: SharedBrowser) -> None:
        self._browser = browser
        self._next: asyncio.Task[FreshPage] | None = None

    async def take(self, more: bool) -> FreshPage:
        """A fresh page for this attempt; `more`: another attempt follows on this worker,
        so its page starts now."""
        ready, self._next = self._next, None
        fresh = await self._usable(ready) if ready is not None else None
        if fresh is None:
            fresh = await fresh_page(self._browser)
        if more:
            self._next = asyncio.create_task(fresh_page(self._browser))
        return fresh

    async def _usable(self, ready: asyncio.Task[FreshPage]) -> FreshPage | None:
        try:
            context, generation, page = await ready
        except Exception:  # making it failed: the attempt makes its own, and sees why
            return None
        if self._browser.alive(generation) and not page.is_closed():
            return context, generation, page
        await closed_quietly(context)
        return None

    async def discard(self) -> None:
        """Close a page made for an attempt that did not come."""
        ready, self._next = self._next, None
        if ready is None:
            return
        try:
            context, _, _ = await ready
        except Exception:
            return
        await closed_quietly(context)


async def quietly(awaitable: Awaitable[Any]) -> None:
    """Await a clean-up whose failure changes nothing (a context of a dead browser)."""
    with contextlib.suppress(Exception):
        await awaitable


async def closed_quietly(context: BrowserContext) -> None:
    """Close a context, giving up on a browser that does not answer (it is closed with the
    browser at the run's end)."""
    await quietly(asyncio.wait_for(context.close(), CLOSE_LIMIT_S))


async def _launch(playwright: Playwright, headless: bool) -> Browser:
    from endstate.browser import launch

    return await launch(playwright, headless)


@asynccontextmanager
async def shared_browser(
    needed: bool, headless: bool = True
) -> AsyncIterator[SharedBrowser | None]:
    """The one Chromium in-process agents share, only if one needs it."""
    if not needed:
        yield None
        return
    from endstate.browser import playwright_driver

    async with playwright_driver() as pw:
        shared = SharedBrowser(pw, await _launch(pw, headless), headless)
        try:
            yield shared
        finally:
            await shared.close()


class LaunchAhead:
    """The run's browser starting while the rest of the run is set up.

    Playwright's driver and Chromium take about half a second to start, as long as setting
    up the environment, the agent and the pins can take; a run whose agent takes a page
    starts it before anything else. `enter` hands the browser to the run's exit stack;
    `abandon` (called whatever way the run ends) closes one the run never took."""

    def __init__(self, headless: bool = True) -> None:
        self._manager = shared_browser(True, headless)
        self._entering = asyncio.create_task(self._manager.__aenter__())
        self._settled = False  # handed to the run, or closed

    async def enter(self, stack: AsyncExitStack) -> SharedBrowser | None:
        browser = await self._entering
        self._settled = True
        stack.push_async_exit(self._manager.__aexit__)
        return browser

    async def abandon(self) -> None:
        if self._settled:
            return
        self._settled = True
        try:
            await self._entering
        except Exception:  # it never started: nothing to close
            return
        await self._manager.__aexit__(None, None, None)

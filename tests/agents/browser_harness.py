"""One headless Chromium on a background event loop, shared by the whole test session.

Playwright's async API needs one event loop; keeping it in a thread lets plain sync tests
hand it coroutines (`Browser.run`) while the browser launches only once.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from playwright.async_api import Browser as PWBrowser
from playwright.async_api import Page, Playwright, async_playwright

from endstate.browser import launch_options

T = TypeVar("T")


class Browser:
    """One Chromium for the session; each `run` gets a fresh context and page."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.playwright: Playwright | None = None
        self.browser: PWBrowser | None = None
        self.call(self._start())

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _start(self) -> None:
        self.playwright = await async_playwright().start()
        self.browser = await self.playwright.chromium.launch(**launch_options(True))

    def run(self, fn: Callable[[Page], Awaitable[T]], url: str | None = None) -> T:
        async def go() -> T:
            assert self.browser is not None
            context = await self.browser.new_context(accept_downloads=True)
            try:
                page = await context.new_page()
                if url:
                    await page.goto(url)
                return await fn(page)
            finally:
                await context.close()

        return self.call(go())

    def close(self) -> None:
        async def stop() -> None:
            if self.browser is not None:
                await self.browser.close()
            if self.playwright is not None:
                await self.playwright.stop()

        self.call(stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)

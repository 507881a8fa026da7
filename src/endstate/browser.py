"""The one place that launches Chromium: one browser process, a fresh context per attempt.

Debian's /usr/bin/chromium is preferred where it exists (no download, distribution-patched);
otherwise Playwright's own bundled Chromium is used.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from playwright.async_api import Browser as AsyncBrowser
from playwright.async_api import async_playwright
from playwright.sync_api import Browser, BrowserContext, Playwright, sync_playwright

SYSTEM_CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
EXECUTABLE_ENV = "ENDSTATE_CHROMIUM"


def chromium_executable() -> Path | None:
    """$ENDSTATE_CHROMIUM, else /usr/bin/chromium, else None (Playwright's bundled build)."""
    override = os.environ.get(EXECUTABLE_ENV)
    if override:
        found = shutil.which(override) or override
        return Path(found)
    return SYSTEM_CHROMIUM if SYSTEM_CHROMIUM.exists() else None


class BrowserHost:
    """A headless Chromium shared by many attempts; each attempt gets its own context."""

    def __init__(self, *, headless: bool = True) -> None:
        self._playwright: Playwright | None = sync_playwright().start()
        executable = chromium_executable()
        try:
            self.browser: Browser = self._playwright.chromium.launch(
                headless=headless,
                executable_path=str(executable) if executable else None,
                args=list(CHROMIUM_ARGS),
            )
        except Exception:
            self._playwright.stop()
            self._playwright = None
            raise
        self.executable = str(executable) if executable else "playwright-bundled"

    @property
    def version(self) -> str:
        return self.browser.version

    def new_context(self, **options: Any) -> BrowserContext:
        """A fresh context: no cookies, storage or cache shared with any other attempt."""
        options.setdefault("accept_downloads", True)
        options.setdefault("viewport", {"width": 1280, "height": 900})
        return self.browser.new_context(**options)

    def close(self) -> None:
        if self._playwright is None:
            return
        try:
            self.browser.close()
        finally:
            self._playwright.stop()
            self._playwright = None

    def __enter__(self) -> BrowserHost:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


@asynccontextmanager
async def async_browser(
    *, headless: bool = True, cdp_port: int | None = None
) -> AsyncIterator[AsyncBrowser]:
    """The shared browser for a run, on the runner's event loop.

    With `cdp_port`, Chromium also listens for DevTools on loopback so an external agent can
    drive it (`http://127.0.0.1:PORT`).
    """
    executable = chromium_executable()
    args = list(CHROMIUM_ARGS)
    if cdp_port is not None:
        args += [f"--remote-debugging-port={cdp_port}", "--remote-debugging-address=127.0.0.1"]
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            headless=headless,
            executable_path=str(executable) if executable else None,
            args=args,
        )
        try:
            yield browser
        finally:
            await browser.close()

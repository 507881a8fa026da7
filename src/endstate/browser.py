"""The one place that launches Chromium: one browser process, a fresh context per attempt.

Debian's Chromium is preferred where it exists (no download, distribution-patched);
otherwise Playwright's own bundled Chromium is used. Headless, the harness uses Chromium's
headless shell where it is installed (Debian's `chromium-headless-shell`, the build
Playwright itself runs headless): the same Blink, without the browser UI a full Chromium
sets up for every context, so an attempt's fresh context costs a fraction as much.
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
SYSTEM_HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS: tuple[str, ...] = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
EXECUTABLE_ENV = "ENDSTATE_CHROMIUM"


def chromium_executable(*, headless_shell: bool = False) -> Path | None:
    """$ENDSTATE_CHROMIUM, else (when asked and installed) the headless shell, else
    /usr/bin/chromium, else None (Playwright's bundled build)."""
    override = os.environ.get(EXECUTABLE_ENV)
    if override:
        found = shutil.which(override) or override
        return Path(found)
    if headless_shell and SYSTEM_HEADLESS_SHELL.exists():
        return SYSTEM_HEADLESS_SHELL
    return SYSTEM_CHROMIUM if SYSTEM_CHROMIUM.exists() else None


def launch_options(headless: bool, extra_args: tuple[str, ...] = ()) -> dict[str, Any]:
    """Playwright launch options for the harness's own browser (never an agent's)."""
    executable = chromium_executable(headless_shell=headless)
    return {
        "headless": headless,
        "executable_path": str(executable) if executable else None,
        "args": [*CHROMIUM_ARGS, *extra_args],
    }


class BrowserHost:
    """A headless Chromium shared by many attempts; each attempt gets its own context."""

    def __init__(self, *, headless: bool = True) -> None:
        self._playwright: Playwright | None = sync_playwright().start()
        options = launch_options(headless)
        try:
            self.browser: Browser = self._playwright.chromium.launch(**options)
        except Exception:
            self._playwright.stop()
            self._playwright = None
            raise
        self.executable = options["executable_path"] or "playwright-bundled"

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
    extra: tuple[str, ...] = ()
    if cdp_port is not None:
        extra = (f"--remote-debugging-port={cdp_port}", "--remote-debugging-address=127.0.0.1")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(**launch_options(headless, extra))
        try:
            yield browser
        finally:
            await browser.close()

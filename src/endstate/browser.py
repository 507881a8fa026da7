"""The one place that launches Chromium: one browser process, a fresh context per attempt.

Debian's Chromium is preferred where it exists (no download, distribution-patched);
otherwise Playwright's own bundled Chromium is used. Headless, the harness uses Chromium's
headless shell where it is installed (Debian's `chromium-headless-shell`, the build
Playwright itself runs headless): the same Blink, without the browser UI a full Chromium
sets up for every context, so an attempt's fresh context costs a fraction as much.

Playwright's driver makes each browser's profile folder in its temporary folder and removes
it when the browser closes, but not when the browser, the driver or this process is killed
(and a killed browser's children may write into it after). So the driver starts with its
temporary folder in this process's scratch (`endstate.scratch`): whatever it leaves goes when
the driver stops, or with the process's scratch root if nothing stops it.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from playwright.async_api import Browser as AsyncBrowser
from playwright.async_api import Playwright as AsyncPlaywright
from playwright.async_api import async_playwright
from playwright.sync_api import Browser, BrowserContext, Playwright, sync_playwright

from endstate.errors import EndstateError
from endstate.scratch import scratch

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


class BrowserUnavailable(EndstateError):
    """Chromium would not start: one line naming the executable and why."""


def _unavailable(options: dict[str, Any], exc: Exception) -> BrowserUnavailable:
    why = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
    where = options["executable_path"] or "Playwright's own Chromium"
    return BrowserUnavailable(f"the browser ({where}) did not start: {why}")


async def launch(
    playwright: AsyncPlaywright, headless: bool = True, extra_args: tuple[str, ...] = ()
) -> AsyncBrowser:
    """The harness's Chromium on a running driver (`BrowserUnavailable` if it will not start)."""
    options = launch_options(headless, extra_args)
    try:
        return await playwright.chromium.launch(**options)
    except Exception as exc:
        raise _unavailable(options, exc) from exc


@contextmanager
def _driver_temp(folder: Path) -> Iterator[None]:
    """The temporary folder of a Playwright driver started inside (and of its browsers): the
    driver copies this process's environment when it starts, so it is set only meanwhile."""
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(folder)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved


@asynccontextmanager
async def playwright_driver() -> AsyncIterator[AsyncPlaywright]:
    """Playwright's driver, its temporary folder in this process's scratch (removed after)."""
    folder = scratch("endstate-browser-")
    manager = async_playwright()
    try:
        with _driver_temp(folder):
            playwright = await manager.__aenter__()
        try:
            yield playwright
        finally:
            await manager.__aexit__(None, None, None)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class BrowserHost:
    """A headless Chromium shared by many attempts; each attempt gets its own context."""

    def __init__(self, *, headless: bool = True) -> None:
        self._folder = scratch("endstate-browser-")
        with _driver_temp(self._folder):
            self._playwright: Playwright | None = sync_playwright().start()
        options = launch_options(headless)
        try:
            self.browser: Browser = self._playwright.chromium.launch(**options)
        except Exception as exc:
            self._playwright.stop()
            self._playwright = None
            shutil.rmtree(self._folder, ignore_errors=True)
            raise _unavailable(options, exc) from exc
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
            shutil.rmtree(self._folder, ignore_errors=True)

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
    async with playwright_driver() as pw:
        browser = await launch(pw, headless, extra)
        try:
            yield browser
        finally:
            await browser.close()

"""The run's shared browser dying: the attempt it interrupted is unmeasurable (infrastructure,
not the agent's failure), the browser is relaunched, and the run goes on."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from endstate.agents.base import AgentOutcome, AttemptContext, InProcessAgent
from endstate.runs import shared_browser as shared
from endstate.runs.session import RunOptions, execute
from endstate.scratch import process_root

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page


def _profile(pid: int) -> Path:
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    (arg,) = [a for a in cmdline if a.startswith(b"--user-data-dir=")]
    return Path(arg.split(b"=", 1)[1].decode())


async def _browser_pid(browser: Browser) -> int:
    """The browser's own process, as Chromium names it (other browsers of this worker's
    earlier test files may still be alive beside it)."""
    cdp = await browser.new_browser_cdp_session()
    info = await cdp.send("SystemInfo.getProcessInfo")
    (pid,) = [p["id"] for p in info["processInfo"] if p["type"] == "browser"]
    await cdp.detach()
    return int(pid)


class BrowserKiller(InProcessAgent):
    """Kills the shared browser during its first attempt; then reads its page like any agent."""

    kind = "test"
    name = "browser-killer"
    scored = True
    uses_page = True

    def __init__(self) -> None:
        self.killed = False
        self.titles: list[str] = []
        self.profile: Path | None = None  # the killed browser's profile folder

    def config(self) -> dict[str, Any]:
        return {}

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        assert page is not None
        if not self.killed:
            self.killed = True
            browser = page.context.browser
            assert browser is not None
            pid = await _browser_pid(browser)
            self.profile = _profile(pid)
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while page.context.browser and page.context.browser.is_connected():
                if time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.05)
            return AgentOutcome(claim="done", final_message="finished")
        self.titles.append(await page.title())
        return AgentOutcome(claim="none")


def test_a_browser_that_dies_mid_run_is_relaunched_and_the_attempt_is_unmeasurable(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    agent = BrowserKiller()
    result = asyncio.run(
        execute(
            RunOptions(
                corpus=embedded_corpus(3),
                agent=agent,
                agent_spec="test:browser-killer",
                out=tmp_path / "runs",
                workers=1,
            )
        )
    )
    records = sorted(result.records, key=lambda r: r.task_id)
    first, *rest = records
    assert first.status == "unmeasurable"
    assert "the shared browser died during the attempt" in (first.error or "")
    assert first.infrastructure and first.infrastructure.kind == "browser"
    assert [r.status for r in rest] == ["failed", "failed"]  # scored, on a relaunched browser
    assert len(agent.titles) == 2 and all(agent.titles)  # pages that really loaded
    # The killed browser's profile folder lived in this process's scratch, and went with the
    # run's driver: nothing is left in the system's temporary folder to pile up.
    assert agent.profile is not None
    assert agent.profile.is_relative_to(process_root()), agent.profile
    assert not agent.profile.exists()


def test_a_wedged_browser_gives_no_page_within_the_limit_made_now_or_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A browser that stops answering (stopped here with SIGSTOP) makes no page: asking for
    one fails within the limit, whether made now or ahead, and works again once it answers."""
    monkeypatch.setattr(shared, "PAGE_LIMIT_S", 1.0)
    monkeypatch.setattr(shared, "CLOSE_LIMIT_S", 1.0)

    async def scenario() -> list[str]:
        async with shared.shared_browser(True) as browser:
            assert browser is not None
            context, _, page = await shared.fresh_page(browser)
            pid = await _browser_pid(page.context.browser)  # type: ignore[arg-type]
            await shared.closed_quietly(context)
            ahead = shared.PagesAhead(browser)
            os.kill(pid, signal.SIGSTOP)
            try:
                began = time.monotonic()
                with pytest.raises(shared.NoPage, match="no page within 1s"):
                    await ahead.take(more=True)  # made now, and the next started ahead
                with pytest.raises(shared.NoPage):
                    await shared.fresh_page(browser)
                await ahead.discard()  # the one started ahead fails too, and is let go
                waited = time.monotonic() - began
            finally:
                os.kill(pid, signal.SIGCONT)
            assert waited < 8, waited
            context, _, page = await ahead.take(more=False)  # the browser answers again
            await page.goto("about:blank")
            await shared.closed_quietly(context)
            return [page.url]

    assert asyncio.run(scenario()) == ["about:blank"]

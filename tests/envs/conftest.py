"""Shared fixtures: one running suite and one Chromium per test session, fresh episodes per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page

from endstate.browser import BrowserHost
from endstate.envs import EmbeddedSuite, EpisodeInfo

WORLD_SEED = 20260302


@pytest.fixture(scope="session")
def template_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("templates")


@pytest.fixture(scope="session")
def suite(template_cache: Path) -> Iterator[EmbeddedSuite]:
    running = EmbeddedSuite.start(world_seed=WORLD_SEED, cache_dir=template_cache, testids=True)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser_host() -> Iterator[BrowserHost]:
    # Module scope: Playwright's sync API holds an event loop on the main thread while it
    # lives, which other test modules (driving asyncio themselves) must not run beside.
    host = BrowserHost()
    yield host
    host.close()


@pytest.fixture
def episode(suite: EmbeddedSuite) -> Iterator[EpisodeInfo]:
    info = suite.open_episode()
    yield info
    suite.close_episode(info.id)


@pytest.fixture
def context(browser_host: BrowserHost) -> Iterator[BrowserContext]:
    ctx = browser_host.new_context()
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()

"""Real parts for agent tests: a local web app, headless Chromium, a scripted chat endpoint."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from endstate.agents.base import AttemptContext
from endstate.firewall import Projection

from .browser_harness import Browser
from .form_site import FormSite
from .scripted_chat import ScriptedChat


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    b = Browser()
    yield b
    b.close()


@pytest.fixture(scope="session")
def _site() -> Iterator[FormSite]:
    site = FormSite().start()
    yield site
    site.stop()


@pytest.fixture
def site(_site: FormSite) -> FormSite:
    _site.submissions.clear()
    return _site


@pytest.fixture(scope="session")
def _chat() -> Iterator[ScriptedChat]:
    chat = ScriptedChat().start()
    yield chat
    chat.stop()


@pytest.fixture
def chat(_chat: ScriptedChat) -> ScriptedChat:
    _chat.reset()
    return _chat


@pytest.fixture
def attachment(tmp_path: Path) -> Path:
    path = tmp_path / "clinical-notes.txt"
    path.write_text("Clinical notes for the referral\n")
    return path


def make_ctx(site: FormSite, **extra: Any) -> AttemptContext:
    projection = Projection(
        task_id="t-form-1",
        instruction="Submit the referral form for Dana Reyes, service date 03/14/2026.",
        family="referral_intake",
        scenario_label="standard",
        start_url=f"{site.url}/form",
    )
    return AttemptContext(projection=projection, start_urls={"ehr": f"{site.url}/form"}, **extra)


@pytest.fixture
def ctx_for(site: FormSite) -> Callable[..., AttemptContext]:
    return lambda **extra: make_ctx(site, **extra)

"""Replay: a recorded trajectory drives the real form; failures stop it at once."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from endstate.agents.actions import ACTION_ADAPTER, Action, TrajectoryError, save_trajectory
from endstate.agents.base import AgentOutcome, AttemptContext
from endstate.agents.perform import ActionFailed, ActOptions
from endstate.agents.registry import make_agent
from endstate.agents.replay import ReplayAgent, TrajectoryRecorder

from .browser_harness import Browser
from .form_site import FormSite

Ctx = Callable[..., AttemptContext]

FORM_ACTIONS: list[dict[str, Any]] = [
    {"type": "fill", "target": {"label": "Patient name"}, "value": "Dana Reyes"},
    {"type": "fill", "target": {"label": "Service date"}, "value": "03/14/2026"},
    {
        "type": "select",
        "target": {"role": "combobox", "name": "Visit type"},
        "option": "New patient",
    },
    {"type": "select", "target": {"label": "Note category"}, "option": "Prior authorization"},
    {"type": "check", "target": {"label": "Urgent"}},
    {"type": "upload", "target": {"label": "Attachment"}, "path": "clinical-notes.txt"},
    {"type": "click", "target": {"role": "button", "name": "Submit request"}},
    {"type": "done", "message": "Submitted, confirmation REQ-0001"},
]

EXPECTED_SUBMISSION = {
    "patient": "Dana Reyes",
    "service_date": "03/14/2026",
    "visit_type": "new",
    "category": "auth",
    "urgent": "yes",
    "attachment_name": "clinical-notes.txt",
    "attachment_text": "Clinical notes for the referral\n",
}


def actions(raw: list[dict[str, Any]]) -> list[Action]:
    return [ACTION_ADAPTER.validate_python(a) for a in raw]


def trajectory(tmp_path: Path, raw: list[dict[str, Any]], attachment: Path) -> Path:
    """A trajectory file with the attachment beside it, addressed by a relative path."""
    folder = tmp_path / "trajectories"
    folder.mkdir(exist_ok=True)
    shutil.copy(attachment, folder / attachment.name)
    return save_trajectory(actions(raw), folder / "form.json")


def replay(browser: Browser, agent: ReplayAgent, ctx: AttemptContext, url: str) -> AgentOutcome:
    return browser.run(lambda page: agent.attempt(ctx, page), url)


def test_replay_fills_the_form_and_the_server_gets_exactly_those_values(
    browser: Browser, site: FormSite, ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    agent = ReplayAgent(trajectory(tmp_path, FORM_ACTIONS, attachment))
    outcome = replay(browser, agent, ctx_for(), f"{site.url}/form")

    assert outcome.claim == "done", outcome.error
    assert outcome.final_message == "Submitted, confirmation REQ-0001"
    assert outcome.steps == len(FORM_ACTIONS)
    assert [r.step for r in outcome.actions] == list(range(1, len(FORM_ACTIONS) + 1))
    assert all(r.ok for r in outcome.actions)
    assert [r.action["type"] for r in outcome.actions] == [a["type"] for a in FORM_ACTIONS]
    times = [r.at for r in outcome.actions]
    assert times == sorted(times) and times[0] >= 0
    assert site.submissions == [EXPECTED_SUBMISSION]


def test_replay_is_validation_and_pins_its_file(tmp_path: Path, attachment: Path) -> None:
    path = trajectory(tmp_path, FORM_ACTIONS, attachment)
    agent = ReplayAgent(path)
    assert (agent.kind, agent.scored) == ("replay", False)
    config = agent.config()
    assert config["actions"] == len(FORM_ACTIONS)
    assert len(config["sha256"]) == 64
    path.write_text(path.read_text().replace("Dana", "Dane"))
    assert ReplayAgent(path).config()["sha256"] != config["sha256"]


def test_a_folder_replay_plays_each_tasks_own_trajectory(
    browser: Browser, site: FormSite, ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    """`replay:DIR` holds one `<task id>.json` per task; a task without one is an error."""
    folder = trajectory(tmp_path, FORM_ACTIONS, attachment).parent
    (folder / "form.json").rename(folder / "t-form-1.json")
    save_trajectory(actions(FORM_ACTIONS[:1]), folder / "t-other.json")
    agent = ReplayAgent(folder)
    assert agent.config()["tasks"] == ["t-form-1", "t-other"]
    outcome = replay(browser, agent, ctx_for(), f"{site.url}/form")
    assert outcome.claim == "done", outcome.error
    assert site.submissions == [EXPECTED_SUBMISSION]
    (folder / "t-form-1.json").unlink()
    missing = replay(browser, ReplayAgent(folder), ctx_for(), f"{site.url}/form")
    assert (missing.claim, missing.error) == (
        "error",
        f"no trajectory for task t-form-1 in {folder}",
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(TrajectoryError, match="no trajectories"):
        ReplayAgent(empty)


def test_replay_stops_at_the_first_failing_action(
    browser: Browser, site: FormSite, ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    raw = [
        FORM_ACTIONS[0],
        {"type": "click", "target": {"role": "button", "name": "Save draft"}},
        {"type": "fill", "target": {"label": "Service date"}, "value": "03/14/2026"},
        {"type": "done", "message": "never reached"},
    ]
    agent = ReplayAgent(trajectory(tmp_path, raw, attachment), options=ActOptions(timeout_ms=600))

    async def go(page: Page) -> tuple[AgentOutcome, str, str]:
        outcome = await agent.attempt(ctx_for(), page)
        name = await page.get_by_label("Patient name").input_value()
        return outcome, name, await page.get_by_label("Service date").input_value()

    outcome, name, date = browser.run(go, f"{site.url}/form")
    assert outcome.claim == "error"
    assert outcome.steps == 2
    assert outcome.error == "step 2 (click): no button 'Save draft' on the page (waited 0.6s)"
    assert [r.ok for r in outcome.actions] == [True, False]
    assert outcome.final_message is None
    assert (name, date) == ("Dana Reyes", "")
    assert site.submissions == []


def test_replay_honours_the_step_limit(
    browser: Browser, site: FormSite, ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    agent = ReplayAgent(trajectory(tmp_path, FORM_ACTIONS, attachment))
    outcome = replay(browser, agent, ctx_for(max_steps=3), f"{site.url}/form")
    assert outcome.claim == "step_limit"
    assert outcome.steps == 3
    assert site.submissions == []


def test_replay_without_done_claims_nothing(
    browser: Browser, site: FormSite, ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    agent = ReplayAgent(trajectory(tmp_path, FORM_ACTIONS[:2], attachment))
    outcome = replay(browser, agent, ctx_for(), f"{site.url}/form")
    assert (outcome.claim, outcome.steps) == ("none", 2)


def test_replay_gives_up_when_the_trajectory_says_so(
    browser: Browser, site: FormSite, ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    raw = [{"type": "give_up", "message": "coverage inactive"}, FORM_ACTIONS[0]]
    agent = ReplayAgent(trajectory(tmp_path, raw, attachment))
    outcome = replay(browser, agent, ctx_for(), f"{site.url}/form")
    assert (outcome.claim, outcome.final_message, outcome.steps) == (
        "gave_up",
        "coverage inactive",
        1,
    )


def test_replay_downloads_into_the_trace_folder(
    browser: Browser, site: FormSite, ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    raw = [{"type": "download", "target": {"text": "Download referral letter"}}]
    agent = ReplayAgent(trajectory(tmp_path, raw, attachment))
    trace = tmp_path / "trace"
    outcome = replay(browser, agent, ctx_for(trace_dir=trace), f"{site.url}/form")
    assert outcome.actions[0].ok, outcome.actions[0].result
    assert (trace / "downloads" / "referral-letter.txt").is_file()
    assert str(trace / "downloads" / "referral-letter.txt") in outcome.actions[0].result


def test_replay_without_a_page_is_an_error_outcome(
    ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    agent = ReplayAgent(trajectory(tmp_path, FORM_ACTIONS, attachment))
    outcome = asyncio.run(agent.attempt(ctx_for(), None))
    assert outcome.claim == "error"
    assert outcome.steps == 0


def test_replay_rejects_a_bad_file_up_front(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"version": 1, "actions": [{"type": "tap"}]}')
    with pytest.raises(
        TrajectoryError, match=r"bad\.json: actions\[0\]: unknown action type 'tap'"
    ):
        ReplayAgent(path)


def test_recorded_session_replays_to_the_same_end_state(
    browser: Browser, site: FormSite, ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    path = tmp_path / "recorded" / "form.json"

    async def record(page: Page) -> None:
        recorder = TrajectoryRecorder(page, ActOptions(timeout_ms=600))
        for raw in FORM_ACTIONS[:5]:
            await recorder.do(raw)
        with pytest.raises(ActionFailed, match="no button 'Nope'"):
            await recorder.do({"type": "click", "target": {"role": "button", "name": "Nope"}})
        await recorder.do(
            {"type": "upload", "target": {"label": "Attachment"}, "path": str(attachment)}
        )
        for raw in FORM_ACTIONS[6:]:
            await recorder.do(raw)
        recorder.save(path, description="referral form")

    browser.run(record, f"{site.url}/form")
    assert site.submissions == [EXPECTED_SUBMISSION]
    agent = ReplayAgent(path)
    assert len(agent.trajectory.actions) == len(FORM_ACTIONS)  # the failed click was not kept

    outcome = replay(browser, agent, ctx_for(), f"{site.url}/form")
    assert outcome.claim == "done", outcome.error
    assert site.submissions == [EXPECTED_SUBMISSION, EXPECTED_SUBMISSION]


def test_replay_ends_itself_before_the_time_limit(
    browser: Browser, site: FormSite, ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    raw = [FORM_ACTIONS[0], {"type": "wait", "seconds": 5}, FORM_ACTIONS[1]]
    agent = ReplayAgent(trajectory(tmp_path, raw, attachment))
    started = time.monotonic()
    outcome = replay(browser, agent, ctx_for(time_limit=1.5), f"{site.url}/form")
    assert time.monotonic() - started < 4.5  # the 5 s wait was cut short, not sat out
    assert outcome.claim == "timeout"
    assert [(r.action["type"], r.ok) for r in outcome.actions] == [("fill", True), ("wait", False)]


def test_the_action_timeout_option_bounds_each_wait_and_is_pinned(
    browser: Browser, site: FormSite, ctx_for: Ctx, tmp_path: Path, attachment: Path
) -> None:
    """`--action-timeout`: how long a step waits for a target that never comes, pinned in the
    agent's config (replay and llm alike) so a run on a slow machine says it waited longer."""
    missing = {"type": "click", "target": {"role": "button", "name": "Not on this page"}}
    path = trajectory(tmp_path, [FORM_ACTIONS[0], missing], attachment)
    for seconds in (0.5, 2.0):
        agent = make_agent(f"replay:{path}", dict(action_timeout_s=seconds))
        assert agent.config()["timeout_ms"] == seconds * 1000
        assert isinstance(agent, ReplayAgent)
        outcome = replay(browser, agent, ctx_for(), f"{site.url}/form")
        assert outcome.claim == "error"
        assert f"(waited {seconds:g}s)" in (outcome.error or ""), outcome.error
    llm = make_agent("llm:some-model", dict(action_timeout_s=7.5, base_url="http://x"))
    assert llm.config()["action_timeout_ms"] == 7500
    assert (
        make_agent("llm:some-model", dict(base_url="http://x")).config()["action_timeout_ms"]
        == ActOptions().timeout_ms
    )

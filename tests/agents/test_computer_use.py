"""The computer-use loop with the plain-chat backend: a real local chat-completions server, the
real `openai` client, the real form in Chromium, and replies computed from what the model was
shown (the set-of-marks list in the request says where each field is)."""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from endstate.agents.base import ActionRecord, AgentOutcome, AttemptContext
from endstate.agents.chat_backend import ChatBackend, parse_coord_reply
from endstate.agents.computer import KeyChord, Viewport
from endstate.agents.computer_loop import ComputerUseAgent
from endstate.agents.llm import task_message
from endstate.agents.model_calls import RetryPolicy, reached_no_model
from endstate.agents.screen import take_screen

from .browser_harness import Browser
from .form_site import FormSite
from .scripted_chat import Reply, ScriptedChat

Ctx = Callable[..., AttemptContext]
FAST = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.05)


def cu_agent(chat: ScriptedChat, **extra: Any) -> ComputerUseAgent:
    keep = extra.pop("keep_screens", 3)
    return ComputerUseAgent(
        "cu-chat",
        lambda: ChatBackend("vision-model", chat.base_url, keep_screens=keep, retry=FAST),
        name="cu-chat:vision-model",
        **extra,
    )


def run(browser: Browser, agent: ComputerUseAgent, ctx: AttemptContext, url: str) -> AgentOutcome:
    return browser.run(lambda page: agent.attempt(ctx, page), url)


def last_user_text(body: dict[str, Any]) -> str:
    content = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    return content if isinstance(content, str) else content[0]["text"]


def act(action: dict[str, Any]) -> Reply:
    return Reply(json.dumps(action))


def click_on(role: str, name: str) -> Reply:
    """Click the centre of the marked element the request lists with this role and name."""

    def compute(body: dict[str, Any]) -> str:
        found = re.search(rf"\[\d+\] {role} {name!r} at \((\d+), (\d+)\)", last_user_text(body))
        assert found, f"no mark for {role} {name!r} in the request"
        return json.dumps({"type": "click_at", "x": int(found[1]), "y": int(found[2])})

    return Reply("", compute=compute)


def images_in(body: dict[str, Any]) -> list[str]:
    return [
        part["image_url"]["url"]
        for m in body["messages"]
        if isinstance(m["content"], list)
        for part in m["content"]
        if part["type"] == "image_url"
    ]


def test_cu_chat_fills_the_form_with_mouse_and_keyboard(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx, tmp_path: Path
) -> None:
    chat.reset(
        Reply("", status=429),  # rate limited: retried and counted, not a failure
        click_on("textbox", "Patient name"),
        act({"type": "type_text", "text": "Dana Reyes"}),
        click_on("textbox", "Service date"),
        act({"type": "type_text", "text": "03/14/2026"}),
        Reply("I will now tick the urgent box."),  # not JSON: costs a step, shown back
        click_on("checkbox", "Urgent"),
        click_on("button", "Submit request"),
        act({"type": "done", "message": "Submitted"}),
    )
    ctx = ctx_for(trace_dir=tmp_path / "trace")
    outcome = run(browser, cu_agent(chat, marks=True), ctx, f"{site.url}/form")

    assert outcome.claim == "done" and outcome.final_message == "Submitted", outcome.error
    assert [s["patient"] for s in site.submissions] == ["Dana Reyes"]
    assert site.submissions[0]["service_date"] == "03/14/2026"
    assert site.submissions[0]["urgent"] == "yes"
    kinds = [a.action.get("type", "invalid") for a in outcome.actions]
    assert kinds == [
        "click_at",
        "type_text",
        "click_at",
        "type_text",
        "invalid",
        "click_at",
        "click_at",
        "done",
    ]
    assert outcome.steps == 8
    invalid = outcome.actions[4]
    assert not invalid.ok and invalid.action == {"invalid_reply": "I will now tick the urgent box."}
    assert "ERROR, the reply is not a single JSON object" in last_user_text(chat.requests[6])

    usage = outcome.usage
    assert usage is not None
    assert (usage.calls, usage.retries, usage.failed_calls) == (9, 1, 0)
    assert (usage.input_tokens, usage.output_tokens) == (800, 80)
    assert outcome.tokens is not None and outcome.tokens.prompt == 800
    # Each turn resends at most the latest 3 screens: 1 + 2 + 3 * 6.
    assert usage.images == 21
    last = chat.requests[-1]
    assert len(images_in(last)) == 3
    assert json.dumps(last).count("[screen omitted: only the latest 3 are kept]") == 5

    first = chat.requests[0]
    assert first["messages"][1] == {"role": "user", "content": task_message(ctx, "task")}
    assert "1280x800 CSS pixels" in first["messages"][0]["content"]
    assert images_in(first)[0].startswith("data:image/png;base64,")
    assert "Accessibility snapshot" not in json.dumps(first)  # screenshot-only by default

    screens = sorted(p.name for p in (tmp_path / "trace" / "screens").iterdir())
    assert screens == [f"step-{n:04d}.png" for n in range(8)]
    png = (tmp_path / "trace" / "screens" / "step-0000.png").read_bytes()
    assert struct.unpack(">II", png[16:24]) == (1280, 800)  # the viewport was pinned
    assert (outcome.screens_saved, outcome.screens_dropped) == (8, 0)


def test_screens_beyond_the_cap_are_dropped_and_counted(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx, tmp_path: Path
) -> None:
    view = Viewport(800, 600)

    async def measure(page: Any) -> int:
        await page.set_viewport_size({"width": view.width, "height": view.height})
        screen = await take_screen(page, view)
        return len(screen.png)

    size = browser.run(measure, f"{site.url}/form")
    pause = {"type": "pause", "seconds": 0.01}
    chat.reset(act(pause), act(pause), act(pause), act({"type": "give_up", "message": "no"}))
    agent = cu_agent(chat, viewport=view, screens_cap=int(size * 2.5))
    outcome = run(browser, agent, ctx_for(trace_dir=tmp_path / "t"), f"{site.url}/form")

    assert outcome.claim == "gave_up"
    assert (outcome.screens_saved, outcome.screens_dropped) == (2, 2)
    kept = sorted(p.name for p in (tmp_path / "t" / "screens").iterdir())
    assert kept == ["step-0000.png", "step-0001.png"]


def test_a_model_that_keeps_failing_is_the_agents_failure(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(act({"type": "pause", "seconds": 0.01}), default=Reply("", status=503))
    outcome = run(browser, cu_agent(chat), ctx_for(), f"{site.url}/form")

    assert outcome.claim == "error" and outcome.model_failure
    assert outcome.error and "HTTP 503" in outcome.error
    assert outcome.infrastructure_error is None
    assert outcome.usage is not None
    assert (outcome.usage.calls, outcome.usage.retries, outcome.usage.failed_calls) == (3, 1, 1)
    assert outcome.steps == 1  # the pause before the model went down is on the record
    assert not reached_no_model(outcome.usage)  # it answered once: the agent's failure


def test_a_model_call_cut_by_the_time_limit_is_counted_failed(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(default=Reply('{"type": "screenshot"}', delay=5.0))
    outcome = run(browser, cu_agent(chat), ctx_for(time_limit=1.5), f"{site.url}/form")

    assert outcome.claim == "timeout" and outcome.usage is not None
    assert (outcome.usage.calls, outcome.usage.failed_calls, outcome.usage.succeeded) == (1, 1, 0)
    assert reached_no_model(outcome.usage)  # never heard from its model


def test_the_step_limit_counts_every_action(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(default=act({"type": "pause", "seconds": 0.01}))
    outcome = run(browser, cu_agent(chat, max_steps=3), ctx_for(), f"{site.url}/form")
    assert outcome.claim == "step_limit" and outcome.steps == 3 == len(chat.requests)


def test_accessibility_observation_and_marks_reach_the_model_as_text(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(act({"type": "give_up", "message": "just looking"}))
    agent = cu_agent(chat, observation="accessibility", marks=True)
    outcome = run(browser, agent, ctx_for(), f"{site.url}/form")
    assert outcome.claim == "gave_up"
    (request,) = chat.requests
    text = last_user_text(request)
    assert images_in(request) == [] and outcome.usage and outcome.usage.images == 0
    assert 'textbox "Patient name"' in text and "Marked elements:" in text
    assert re.search(r"\[\d+\] button 'Submit request' at \(\d+, \d+\)", text)


def test_replies_are_parsed_strictly_with_key_names_normalised() -> None:
    action, problem = parse_coord_reply('```json\n{"type": "key", "keys": "ctrl+a"}\n```')
    assert problem is None and action == KeyChord(keys=["Control", "a"])
    action, problem = parse_coord_reply('{"type": "click_at", "x": 10}')
    assert action is None and problem and "y" in problem
    action, problem = parse_coord_reply('{"type": "click_at", "x": 1, "y": 2, "why": "?"}')
    assert action is None and problem and "why" in problem
    _, problem = parse_coord_reply("[]")
    assert problem == "the reply is JSON but not an object (got list)"


def test_old_traces_load_without_thoughts() -> None:
    record = ActionRecord.model_validate(
        {"step": 1, "action": {"type": "wait"}, "ok": True, "at": 0}
    )
    assert record.thought is None

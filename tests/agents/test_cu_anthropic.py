"""The Anthropic computer-use backend against a local Messages API double and the real SDK."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from anthropic.types.beta import BetaMessage
from anthropic.types.beta.beta_tool_computer_use_20241022_param import (
    BetaToolComputerUse20241022Param,
)
from anthropic.types.beta.beta_tool_computer_use_20250124_param import (
    BetaToolComputerUse20250124Param,
)
from anthropic.types.beta.beta_tool_result_block_param import BetaToolResultBlockParam
from anthropic.types.beta.message_create_params import MessageCreateParamsNonStreaming

from endstate.agents.anthropic_backend import IMAGE_PLACEHOLDER, AnthropicComputerBackend
from endstate.agents.computer import (
    ActionOutcome,
    ClickAt,
    KeyChord,
    ModelTurn,
    Screenshot,
    TypeText,
    Viewport,
)
from endstate.agents.model_calls import ModelCallFailed, RetryPolicy
from endstate.errors import EndstateError

from .anthropic_double import anthropic_double, message, text, tool_use
from .cu_screens import b64, screen
from .sdk_contract import assert_conforms, assert_parses
from .wire_double import Status, WireDouble

FAST = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)


@pytest.fixture
def double() -> Iterator[WireDouble]:
    server = anthropic_double()
    yield server
    server.stop()


def _backend(double: WireDouble, **options: Any) -> AnthropicComputerBackend:
    return AnthropicComputerBackend("claude-test", base_url=double.base_url, retry=FAST, **options)


def _play(
    backend: AnthropicComputerBackend, steps: list[tuple[list[ActionOutcome], int]]
) -> list[ModelTurn]:
    """begin, then one turn per (outcomes, screen number)."""

    async def go() -> list[ModelTurn]:
        try:
            await backend.begin("Book the follow-up visit.", screen(steps[0][1]))
            return [await backend.turn(outcomes, screen(n)) for outcomes, n in steps]
        finally:
            await backend.close()

    return asyncio.run(go())


def _ok(call_id: str, note: str = "done") -> ActionOutcome:
    return ActionOutcome(call_id, True, note)


def _images(request: dict[str, Any]) -> list[str]:
    """The base64 data of every image in a request, oldest first."""
    found: list[str] = []
    for msg in request["messages"]:
        for block in msg["content"] if isinstance(msg["content"], list) else []:
            inner = block.get("content") if block["type"] == "tool_result" else None
            for b in [block, *(inner if isinstance(inner, list) else [])]:
                if b["type"] == "image":
                    found.append(b["source"]["data"])
    return found


def test_requests_and_replies_have_the_sdk_shapes(double: WireDouble) -> None:
    double.queue(
        message(text("Opening the form."), tool_use("t1", "left_click", coordinate=[40, 60])),
        message(tool_use("t2", "type", text="Ada"), tool_use("t3", "key", text="Return")),
        message(text("Booked."), cache_read=300),
    )
    _play(
        _backend(double),
        [([], 1), ([_ok("t1")], 2), ([_ok("t2"), ActionOutcome("t3", False, "no form")], 3)],
    )
    assert len(double.requests) == 3
    for body in double.requests:
        assert_conforms(MessageCreateParamsNonStreaming, body)
        assert_conforms(BetaToolComputerUse20250124Param, body["tools"][0])
        for msg in body["messages"]:
            for block in msg["content"]:
                if block["type"] == "tool_result":
                    assert_conforms(BetaToolResultBlockParam, block)
    for reply in double.replies:
        assert_parses(BetaMessage, reply)
    assert {h["anthropic-beta"] for h in double.headers} == {"computer-use-2025-01-24"}
    assert double.requests[0]["tools"][0] == {
        "type": "computer_20250124",
        "name": "computer",
        "display_width_px": 1280,
        "display_height_px": 800,
    }
    assert "temperature" not in double.requests[0]


def test_tool_uses_become_actions_in_order_with_their_call_ids(double: WireDouble) -> None:
    double.queue(
        message(
            text("Select all and retype."),
            tool_use("t1", "triple_click", coordinate=[100, 200]),
            tool_use("t2", "key", text="ctrl+a BackSpace"),
            tool_use("t3", "type", text="Ada Lovelace"),
        )
    )
    [turn] = _play(_backend(double), [([], 1)])
    assert turn.text == "Select all and retype."
    assert turn.actions == [
        ("t1", ClickAt(x=100, y=200, clicks=3)),
        ("t2", KeyChord(keys=["Control", "a"])),
        ("t2", KeyChord(keys=["Backspace"])),
        ("t3", TypeText(text="Ada Lovelace")),
    ]


def test_outcomes_and_the_new_screenshot_come_back_as_tool_results(double: WireDouble) -> None:
    double.queue(
        message(
            tool_use("t1", "left_click", coordinate=[5, 5]),
            tool_use("t2", "key", text="ctrl+a Delete"),
            tool_use("t3", "type", text="x"),
            tool_use("t4", "cursor_position"),
        ),
        message(text("Done.")),
    )
    outcomes = [
        _ok("t1", "clicked"),
        _ok("t2", "pressed Control+a"),
        ActionOutcome("t2", False, "Delete: page closed"),
    ]  # t3 never performed: the loop stopped at the failure
    _play(_backend(double), [([], 1), (outcomes, 2)])
    last = double.requests[1]["messages"][-1]
    assert last["role"] == "user"
    results = last["content"]
    assert [r["tool_use_id"] for r in results] == ["t1", "t2", "t3", "t4"]
    assert [r.get("is_error", False) for r in results] == [False, True, True, False]
    assert results[1]["content"][0]["text"] == "pressed Control+a; Delete: page closed"
    assert "not performed" in results[2]["content"][0]["text"]
    assert results[3]["content"][0]["text"] == "X=5,Y=5"  # the last known cursor position
    assert [b["type"] for b in results[3]["content"]] == ["text", "image"]
    assert all(b["type"] == "text" for r in results[:3] for b in r["content"])
    assert results[3]["content"][1]["source"]["data"] == b64(2)


def test_only_the_newest_k_screenshots_are_kept(double: WireDouble) -> None:
    turns = 6
    double.queue(*[message(tool_use(f"t{i}", "screenshot")) for i in range(turns)])
    steps: list[tuple[list[ActionOutcome], int]] = [([], 0)]
    steps += [([_ok(f"t{i}")], i + 1) for i in range(turns - 1)]
    _play(_backend(double, keep_images=3), steps)
    for n, body in enumerate(double.requests):
        kept = _images(body)
        assert kept == [b64(i) for i in range(max(0, n - 2), n + 1)]
        placeholders = str(body["messages"]).count(IMAGE_PLACEHOLDER)
        assert placeholders == max(0, n + 1 - 3)
    # text and tool calls are all still there
    last = double.requests[-1]["messages"]
    assert sum(1 for m in last if m["role"] == "assistant") == turns - 1
    assert last[0]["content"][0]["text"] == "Book the follow-up visit."


def test_a_rate_limit_then_success_is_retried_and_counted(double: WireDouble) -> None:
    double.queue(
        Status(429),
        message(tool_use("t1", "wait", duration=2), cache_creation=50, cache_read=25),
    )
    [turn] = _play(_backend(double), [([], 1)])
    assert (turn.usage.calls, turn.usage.retries, turn.usage.failed_calls) == (2, 1, 0)
    assert turn.usage.input_tokens == 1200 + 50 + 25
    assert (turn.usage.output_tokens, turn.usage.images) == (40, 1)
    assert len(double.requests) == 2 and double.requests[0] == double.requests[1]


def test_a_call_that_keeps_failing_raises_model_call_failed(double: WireDouble) -> None:
    double.queue(Status(529), Status(500), Status(529))
    with pytest.raises(ModelCallFailed, match=r"after 3 tries \(HTTP 529\)"):
        _play(_backend(double), [([], 1)])
    assert len(double.requests) == 3


def test_a_reply_without_tool_use_is_the_final_message(double: WireDouble) -> None:
    double.queue(message(text("The referral is already booked."), stop_reason="end_turn"))
    [turn] = _play(_backend(double), [([], 1)])
    assert (turn.text, turn.actions) == ("The referral is already booked.", [])


def test_a_cut_off_reply_says_why(double: WireDouble) -> None:
    double.queue(message(text("I will now"), stop_reason="max_tokens"))
    [turn] = _play(_backend(double), [([], 1)])
    assert turn.text == "I will now\n[stop_reason: max_tokens]"


def test_unknown_and_bad_calls_go_back_as_errors_and_the_attempt_goes_on(
    double: WireDouble,
) -> None:
    double.queue(
        message(
            tool_use("t1", "zoom", region=[0, 0, 10, 10]),
            tool_use("t2", "left_click", coordinate=[5000, 5]),
            {"type": "tool_use", "id": "t3", "name": "bash", "input": {"command": "ls"}},
        ),
        message(text("Stopping.")),
    )
    turns = _play(_backend(double), [([], 1), ([_ok("t3")], 2)])
    assert turns[0].actions == [("t3", Screenshot())]  # a fresh look, so the loop goes on
    results = double.requests[1]["messages"][-1]["content"]
    assert [r.get("is_error") for r in results] == [True, True, True]
    messages = [r["content"][0]["text"] for r in results]
    assert "unsupported computer action 'zoom'" in messages[0]
    assert "outside the 1280x800 display" in messages[1]
    assert "unknown tool 'bash'" in messages[2]


def test_mouse_down_move_up_is_performed_as_one_drag(double: WireDouble) -> None:
    double.queue(
        message(
            tool_use("t1", "mouse_move", coordinate=[10, 10]),
            tool_use("t2", "left_mouse_down"),
            tool_use("t3", "mouse_move", coordinate=[50, 10]),
            tool_use("t4", "mouse_move", coordinate=[90, 30]),
            tool_use("t5", "left_mouse_up"),
        ),
    )
    [turn] = _play(_backend(double), [([], 1)])
    dumped = [(cid, a.model_dump(exclude_defaults=True)) for cid, a in turn.actions]
    assert dumped == [
        ("t1", {"x": 10, "y": 10}),
        ("t3", {"x": 50, "y": 10}),
        ("t4", {"x": 90, "y": 30}),
        ("t5", {"path": [{"x": 10, "y": 10}, {"x": 50, "y": 10}, {"x": 90, "y": 30}]}),
    ]


def test_the_pinned_tool_version_selects_tool_type_and_beta_flag(double: WireDouble) -> None:
    double.queue(message(text("ok")))
    backend = _backend(double, tool_version="computer_20241022", keep_images=2)
    config = backend.config()
    _play(backend, [([], 1)])
    assert config["tool_version"] == "computer_20241022"
    assert config["beta"] == "computer-use-2024-10-22"
    assert (config["model"], config["keep_images"], config["temperature"]) == (
        "claude-test",
        2,
        None,
    )
    assert len(config["prompt_version"]) == 16
    assert double.headers[0]["anthropic-beta"] == "computer-use-2024-10-22"
    assert_conforms(BetaToolComputerUse20241022Param, double.requests[0]["tools"][0])


def test_a_display_size_follows_the_screen_viewport(double: WireDouble) -> None:
    double.queue(message(text("ok")))
    backend = _backend(double)

    async def go() -> None:
        await backend.begin("t", screen(1, Viewport(1024, 768)))
        await backend.turn([], screen(1, Viewport(1024, 768)))
        await backend.close()

    asyncio.run(go())
    tool = double.requests[0]["tools"][0]
    assert (tool["display_width_px"], tool["display_height_px"]) == (1024, 768)


def test_bad_settings_are_one_line_errors() -> None:
    with pytest.raises(EndstateError, match="tool version 'computer_1999'"):
        AnthropicComputerBackend("m", tool_version="computer_1999")
    with pytest.raises(EndstateError, match="keep_images 0"):
        AnthropicComputerBackend("m", keep_images=0)


def test_the_contract_check_catches_a_field_the_sdk_does_not_know(double: WireDouble) -> None:
    double.queue(message(tool_use("t1", "screenshot")), message(text("ok")))
    _play(_backend(double), [([], 1), ([_ok("t1")], 2)])
    body = double.requests[1]
    assert_conforms(MessageCreateParamsNonStreaming, body)
    result = body["messages"][-1]["content"][0]
    misspelt = {**body, "messages": [*body["messages"][:-1], {"role": "user", "content": [
        {**result, "is_eror": True}
    ]}]}  # fmt: skip
    with pytest.raises(AssertionError, match=r"content\.\*\.is_eror: BetaToolResultBlockParam"):
        assert_conforms(MessageCreateParamsNonStreaming, misspelt)
    without_size = {**body, "tools": [{"type": "computer_20250124", "name": "computer"}]}
    with pytest.raises(AssertionError, match="display_width_px: required"):
        assert_conforms(MessageCreateParamsNonStreaming, without_size)

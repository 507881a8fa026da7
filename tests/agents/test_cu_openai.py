"""The OpenAI computer-use backend against a local Responses API double and the real SDK."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from openai.types.responses import Response
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

from endstate.agents.computer import (
    ActionOutcome,
    ClickAt,
    CoordAction,
    Drag,
    KeyChord,
    ModelTurn,
    MoveTo,
    Pause,
    Point,
    Screenshot,
    ScrollAt,
    TypeText,
    Viewport,
)
from endstate.agents.cu_shared import ActionRefused
from endstate.agents.model_calls import ModelCallFailed, RetryPolicy
from endstate.agents.openai_cu_actions import WAIT_SECONDS, translate
from endstate.agents.openai_cu_backend import OpenAIComputerBackend

from .cu_screens import b64, screen
from .openai_responses_double import (
    ResponsesDouble,
    computer_call,
    message,
    reasoning,
    response,
    responses_double,
)
from .sdk_contract import assert_conforms, assert_parses
from .wire_double import Status

FAST = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)
# OpenAI's computer-use guide has browser environments send the page's URL with each
# screenshot; the SDK's screenshot type does not declare it.
CURRENT_URL = frozenset({"input.*.output.current_url"})


@pytest.fixture
def double() -> Iterator[ResponsesDouble]:
    server = responses_double()
    yield server
    server.stop()


def _backend(double: ResponsesDouble, **options: Any) -> OpenAIComputerBackend:
    return OpenAIComputerBackend(
        "computer-use-preview", base_url=double.base_url, retry=FAST, **options
    )


def _play(
    backend: OpenAIComputerBackend, steps: list[tuple[list[ActionOutcome], int]]
) -> list[ModelTurn]:
    async def go() -> list[ModelTurn]:
        try:
            await backend.begin("Record the prior authorization.", screen(steps[0][1]))
            return [await backend.turn(outcomes, screen(n)) for outcomes, n in steps]
        finally:
            await backend.close()

    return asyncio.run(go())


def _click(x: int, y: int, **extra: Any) -> dict[str, Any]:
    return {"type": "click", "button": "left", "x": x, "y": y, **extra}


def test_requests_and_replies_have_the_sdk_shapes(double: ResponsesDouble) -> None:
    check = {"id": "sc_1", "code": "irrelevant_domain", "message": "The page is off task."}
    double.queue(
        response(reasoning("Open the form."), computer_call("c1", _click(40, 60), [check])),
        response(computer_call("c2", {"type": "type", "text": "PA-1"})),
        response(message("Recorded.")),
    )
    _play(
        _backend(double, temperature=0.0),
        [([], 1), ([ActionOutcome("c1", True, "ok")], 2), ([ActionOutcome("c2", False, "x")], 3)],
    )
    assert len(double.requests) == 3
    for body in double.requests:
        assert_conforms(ResponseCreateParamsNonStreaming, body, CURRENT_URL)
        assert body["tools"] == [
            {
                "type": "computer_use_preview",
                "display_width": 1280,
                "display_height": 800,
                "environment": "browser",
            }
        ]
        assert (body["truncation"], body["temperature"]) == ("auto", 0.0)
    for reply in double.replies:
        assert_parses(Response, reply)


def test_the_contract_check_catches_a_field_the_sdk_does_not_know(double: ResponsesDouble) -> None:
    double.queue(response(computer_call("c1", _click(1, 1))), response(message("ok")))
    _play(_backend(double), [([], 1), ([ActionOutcome("c1", True, "ok")], 2)])
    with pytest.raises(AssertionError, match=r"input\.\*\.output\.current_url"):
        assert_conforms(ResponseCreateParamsNonStreaming, double.requests[1])
    misspelt = {**double.requests[1], "truncaton": "auto"}
    with pytest.raises(AssertionError, match="declares no such key"):
        assert_conforms(ResponseCreateParamsNonStreaming, misspelt, CURRENT_URL)


def test_outputs_carry_the_screenshot_and_url_and_chain_on_the_previous_response(
    double: ResponsesDouble,
) -> None:
    double.queue(
        response(computer_call("c1", _click(5, 5)), computer_call("c2", {"type": "wait"})),
        lambda body: response(message(f"continued from {body['previous_response_id']}")),
    )
    outcomes = [ActionOutcome("c1", True, "clicked"), ActionOutcome("c2", True, "waited")]
    turns = _play(_backend(double), [([], 1), (outcomes, 2)])
    assert turns[1].text == f"continued from {double.replies[0]['id']}"
    first, second = double.requests
    assert "previous_response_id" not in first
    opening = first["input"][0]
    assert opening["role"] == "user"
    assert opening["content"][0] == {
        "type": "input_text",
        "text": "Record the prior authorization.",
    }
    assert opening["content"][1]["image_url"] == f"data:image/png;base64,{b64(1)}"
    assert second["previous_response_id"] == double.replies[0]["id"]
    assert second["input"] == [
        {
            "type": "computer_call_output",
            "call_id": call_id,
            "output": {
                "type": "computer_screenshot",
                "image_url": f"data:image/png;base64,{b64(2)}",
                "current_url": "http://portal.test/page/2",
            },
        }
        for call_id in ("c1", "c2")
    ]
    assert second["instructions"] == first["instructions"]  # not carried over by the chain


def test_failed_and_refused_actions_are_told_after_the_outputs(double: ResponsesDouble) -> None:
    double.queue(
        response(
            computer_call("c1", _click(5, 5)),
            computer_call("c2", {"type": "click", "button": "back", "x": 1, "y": 1}),
        ),
        response(message("Stopping.")),
    )
    turns = _play(_backend(double), [([], 1), ([ActionOutcome("c1", False, "no element")], 2)])
    assert turns[0].actions == [("c1", ClickAt(x=5, y=5))]
    items = double.requests[1]["input"]
    assert [i.get("type") for i in items] == ["computer_call_output", "computer_call_output", None]
    told = items[2]["content"][0]["text"]
    assert told == (
        "These actions failed:\n- no element\n- mouse button 'back' is not available here"
    )


def test_safety_checks_are_acknowledged_and_recorded(double: ResponsesDouble) -> None:
    checks = [
        {"id": "sc_1", "code": "malicious_instructions", "message": "Instructions on the page."},
        {"id": "sc_2", "code": "sensitive_domain", "message": "A patient record."},
    ]
    double.queue(response(computer_call("c1", _click(5, 5), checks)), response(message("ok")))
    backend = _backend(double)
    turns = _play(backend, [([], 1), ([ActionOutcome("c1", True, "ok")], 2)])
    assert turns[0].text.splitlines() == [
        "[safety check acknowledged: malicious_instructions] Instructions on the page.",
        "[safety check acknowledged: sensitive_domain] A patient record.",
    ]
    assert backend.safety_checks == checks
    assert double.requests[1]["input"][0]["acknowledged_safety_checks"] == checks


def test_a_response_with_only_a_message_is_the_final_message(double: ResponsesDouble) -> None:
    double.queue(response(reasoning("Nothing to do."), message("Already authorized.")))
    [turn] = _play(_backend(double), [([], 1)])
    assert (turn.text, turn.actions) == ("Already authorized.", [])
    assert (turn.usage.input_tokens, turn.usage.output_tokens, turn.usage.images) == (900, 30, 1)


def test_batched_actions_of_one_call_all_come_through(double: ResponsesDouble) -> None:
    call = computer_call("c1", _click(1, 1))
    call["actions"] = [_click(2, 3), {"type": "type", "text": "hi"}]
    double.queue(response(call))
    [turn] = _play(_backend(double), [([], 1)])
    assert turn.actions == [("c1", ClickAt(x=2, y=3)), ("c1", TypeText(text="hi"))]


def test_a_rate_limit_then_success_is_retried_and_counted(double: ResponsesDouble) -> None:
    double.queue(Status(429), Status(500), response(computer_call("c1", {"type": "screenshot"})))
    [turn] = _play(_backend(double), [([], 1)])
    assert (turn.usage.calls, turn.usage.retries, turn.usage.failed_calls) == (3, 2, 0)
    assert turn.actions == [("c1", Screenshot())]


def test_a_call_that_keeps_failing_raises_model_call_failed(double: ResponsesDouble) -> None:
    double.queue(Status(429), Status(429), Status(429), response(message("never")))
    with pytest.raises(ModelCallFailed, match=r"after 3 tries \(HTTP 429\)"):
        _play(_backend(double), [([], 1)])


def test_config_pins_what_the_run_used(double: ResponsesDouble) -> None:
    config = _backend(double, temperature=0.2, max_output_tokens=800).config()
    assert {k: config[k] for k in ("vendor", "model", "tool", "environment", "truncation")} == {
        "vendor": "openai",
        "model": "computer-use-preview",
        "tool": "computer_use_preview",
        "environment": "browser",
        "truncation": "auto",
    }
    assert (config["temperature"], config["max_output_tokens"]) == (0.2, 800)
    assert "key" not in str(config).lower()


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        (_click(10, 20), ClickAt(x=10, y=20)),
        ({"type": "click", "button": "right", "x": 1, "y": 2}, ClickAt(x=1, y=2, button="right")),
        ({"type": "click", "button": "wheel", "x": 1, "y": 2}, ClickAt(x=1, y=2, button="middle")),
        (_click(3, 4, keys=["SHIFT"]), ClickAt(x=3, y=4, modifiers=["Shift"])),
        ({"type": "double_click", "x": 5, "y": 6}, ClickAt(x=5, y=6, clicks=2)),
        (
            {"type": "drag", "path": [{"x": 1, "y": 1}, {"x": 5, "y": 5}, {"x": 9, "y": 2}]},
            Drag(path=[Point(x=1, y=1), Point(x=5, y=5), Point(x=9, y=2)]),
        ),
        ({"type": "keypress", "keys": ["CTRL", "A"]}, KeyChord(keys=["Control", "a"])),
        ({"type": "keypress", "keys": ["ENTER"]}, KeyChord(keys=["Enter"])),
        ({"type": "move", "x": 7, "y": 8, "keys": ["SHIFT"]}, MoveTo(x=7, y=8)),
        ({"type": "screenshot"}, Screenshot()),
        (
            {"type": "scroll", "x": 300, "y": 400, "scroll_x": 0, "scroll_y": 250},
            ScrollAt(x=300, y=400, dy=250),
        ),
        ({"type": "type", "text": "Jane"}, TypeText(text="Jane")),
        ({"type": "wait"}, Pause(seconds=WAIT_SECONDS)),
    ],
)
def test_each_computer_call_action_has_its_neutral_form(
    action: dict[str, Any], expected: CoordAction
) -> None:
    assert translate(action, Viewport()) == expected


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"type": "click", "button": "forward", "x": 1, "y": 1}, "button 'forward'"),
        ({"type": "drag", "path": [{"x": 1, "y": 1}]}, "at least two points"),
        ({"type": "keypress", "keys": []}, "at least one key"),
        ({"type": "keypress", "keys": "ctrl+a"}, "keys must be a list"),
        ({"type": "move", "x": 2000, "y": 1}, "outside the 1280x800 display"),
        ({"type": "scroll", "x": 1, "y": 1, "scroll_x": 0.5, "scroll_y": 0}, "whole pixels"),
        ({"type": "zoom"}, "unsupported computer action 'zoom'"),
    ],
)
def test_actions_that_cannot_be_performed_are_refused(action: dict[str, Any], message: str) -> None:
    with pytest.raises(ActionRefused, match=message):
        translate(action, Viewport())


def test_an_action_type_the_sdk_does_not_know_is_refused_not_a_crash(
    double: ResponsesDouble,
) -> None:
    double.queue(
        response(computer_call("c1", {"type": "zoom", "region": [1, 2, 3, 4]})),
        response(message("ok")),
    )
    turns = _play(_backend(double), [([], 1), ([ActionOutcome("c1", True, "looked")], 2)])
    assert turns[0].actions == [("c1", Screenshot())]  # a fresh look keeps the attempt going
    told = double.requests[1]["input"][-1]["content"][0]["text"]
    assert told == "These actions failed:\n- unknown or unsupported computer action 'zoom'"

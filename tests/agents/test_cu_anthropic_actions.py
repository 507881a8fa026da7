"""Every action of Anthropic's computer tool, translated into the neutral actions."""

from __future__ import annotations

from typing import Any

import pytest

from endstate.agents.actions import MAX_WAIT_SECONDS
from endstate.agents.anthropic_actions import SCROLL_TICK_PX, ComputerToolTranslator
from endstate.agents.computer import (
    ClickAt,
    CoordAction,
    Drag,
    KeyChord,
    MoveTo,
    Pause,
    Point,
    Screenshot,
    ScrollAt,
    TypeText,
    Viewport,
)
from endstate.agents.cu_shared import ActionRefused


def _translate(
    tool_input: dict[str, Any], cursor: tuple[int, int] | None = None
) -> list[CoordAction]:
    translator = ComputerToolTranslator(Viewport(), cursor=cursor)
    return translator.translate(tool_input).actions


@pytest.mark.parametrize(
    ("tool_input", "expected"),
    [
        ({"action": "screenshot"}, [Screenshot()]),
        ({"action": "left_click", "coordinate": [10, 20]}, [ClickAt(x=10, y=20)]),
        ({"action": "right_click", "coordinate": [10, 20]}, [ClickAt(x=10, y=20, button="right")]),
        ({"action": "middle_click", "coordinate": [1, 2]}, [ClickAt(x=1, y=2, button="middle")]),
        ({"action": "double_click", "coordinate": [3, 4]}, [ClickAt(x=3, y=4, clicks=2)]),
        ({"action": "triple_click", "coordinate": [5, 6]}, [ClickAt(x=5, y=6, clicks=3)]),
        (
            {"action": "left_click", "coordinate": [7, 8], "text": "ctrl+shift"},
            [ClickAt(x=7, y=8, modifiers=["Control", "Shift"])],
        ),
        ({"action": "mouse_move", "coordinate": [640, 400]}, [MoveTo(x=640, y=400)]),
        (
            {"action": "left_click_drag", "start_coordinate": [1, 1], "coordinate": [90, 50]},
            [Drag(path=[Point(x=1, y=1), Point(x=90, y=50)])],
        ),
        (
            {
                "action": "scroll",
                "coordinate": [300, 300],
                "scroll_direction": "down",
                "scroll_amount": 3,
            },
            [ScrollAt(x=300, y=300, dy=3 * SCROLL_TICK_PX)],
        ),
        (
            {
                "action": "scroll",
                "coordinate": [300, 300],
                "scroll_direction": "left",
                "scroll_amount": 2,
                "text": "shift",
            },
            [ScrollAt(x=300, y=300, dx=-2 * SCROLL_TICK_PX, modifiers=["Shift"])],
        ),
        (
            {
                "action": "scroll",
                "coordinate": [0, 0],
                "scroll_direction": "up",
                "scroll_amount": 1,
            },
            [ScrollAt(x=0, y=0, dy=-SCROLL_TICK_PX)],
        ),
        ({"action": "type", "text": "Jane Doe\n"}, [TypeText(text="Jane Doe\n")]),
        ({"action": "key", "text": "Return"}, [KeyChord(keys=["Enter"])]),
        ({"action": "key", "text": "Tab", "repeat": 3}, [KeyChord(keys=["Tab"])] * 3),
        (
            {"action": "hold_key", "text": "shift", "duration": 2},
            [KeyChord(keys=["Shift"]), Pause(seconds=2)],
        ),
        ({"action": "wait", "duration": 3}, [Pause(seconds=3)]),
        ({"action": "wait", "duration": 600}, [Pause(seconds=MAX_WAIT_SECONDS)]),
    ],
)
def test_each_action_has_its_neutral_form(
    tool_input: dict[str, Any], expected: list[CoordAction]
) -> None:
    assert _translate(tool_input) == expected


def test_a_click_without_coordinate_clicks_where_the_cursor_is() -> None:
    assert _translate({"action": "left_click"}, cursor=(33, 44)) == [ClickAt(x=33, y=44)]
    # the 2024 tool's drag starts where the cursor is
    assert _translate({"action": "left_click_drag", "coordinate": [50, 60]}, cursor=(1, 2)) == [
        Drag(path=[Point(x=1, y=2), Point(x=50, y=60)])
    ]


def test_the_translator_follows_the_cursor_and_answers_its_position() -> None:
    translator = ComputerToolTranslator(Viewport())
    assert translator.translate({"action": "cursor_position"}).answer == (
        "the cursor has not been placed yet"
    )
    translator.translate({"action": "scroll", "coordinate": [12, 34], "scroll_direction": "down"})
    translator.translate(
        {"action": "left_click_drag", "start_coordinate": [1, 1], "coordinate": [70, 80]}
    )
    answer = translator.translate({"action": "cursor_position"})
    assert (answer.actions, answer.answer) == ([], "X=70,Y=80")


def test_mouse_down_then_up_in_place_is_a_click() -> None:
    translator = ComputerToolTranslator(Viewport(), cursor=(9, 9))
    down = translator.translate({"action": "left_mouse_down"})
    assert (down.actions, down.answer) == ([], "left button down at (9, 9)")
    assert translator.translate({"action": "left_mouse_up"}).actions == [ClickAt(x=9, y=9)]


@pytest.mark.parametrize(
    ("tool_input", "cursor", "message"),
    [
        ({"action": "zoom", "region": [0, 0, 5, 5]}, None, "unsupported computer action 'zoom'"),
        ({"coordinate": [1, 1]}, None, "unsupported computer action None"),
        ({"action": "left_click"}, None, "no coordinate given and the cursor has not been placed"),
        ({"action": "left_click", "coordinate": [1280, 10]}, None, "outside the 1280x800 display"),
        ({"action": "left_click", "coordinate": [-1, 10]}, None, "outside the 1280x800 display"),
        ({"action": "left_click", "coordinate": "10,20"}, None, "coordinate must be [x, y]"),
        ({"action": "left_click", "coordinate": ["a", 2]}, None, "coordinate must be two numbers"),
        (
            {"action": "scroll", "coordinate": [1, 1], "scroll_direction": "sideways"},
            None,
            "scroll_direction",
        ),
        (
            {
                "action": "scroll",
                "coordinate": [1, 1],
                "scroll_direction": "up",
                "scroll_amount": -2,
            },
            None,
            "scroll_amount",
        ),
        ({"action": "type"}, None, "type needs text as a string"),
        ({"action": "key", "text": "   "}, None, "key needs the key to press"),
        ({"action": "key", "text": "a", "repeat": 0.5}, None, "repeat must be a positive"),
        ({"action": "wait", "duration": "long"}, None, "duration must be a number"),
        ({"action": "left_mouse_up"}, (1, 1), "the left mouse button is not down"),
        ({"action": "left_mouse_down"}, None, "move the mouse somewhere"),
    ],
)
def test_calls_that_cannot_be_performed_are_refused_with_a_reason(
    tool_input: dict[str, Any], cursor: tuple[int, int] | None, message: str
) -> None:
    with pytest.raises(ActionRefused, match=message.replace("[", r"\[").replace("(", r"\(")):
        _translate(tool_input, cursor)

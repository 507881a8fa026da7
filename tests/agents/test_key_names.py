"""Vendor key names become Playwright's."""

from __future__ import annotations

import pytest

from endstate.agents.key_names import chord, playwright_key, xdotool_chords


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("Return", [["Enter"]]),
        ("ctrl+a", [["Control", "a"]]),
        ("ctrl+A", [["Control", "a"]]),
        ("shift+Tab", [["Shift", "Tab"]]),
        ("super+Page_Down", [["Meta", "PageDown"]]),
        ("ctrl+shift+t", [["Control", "Shift", "t"]]),
        ("ctrl+a Delete", [["Control", "a"], ["Delete"]]),
        ("ctrl++", [["Control", "+"]]),
        ("+", [["+"]]),
        ("KP_Enter", [["Enter"]]),
        ("BackSpace", [["Backspace"]]),
        ("Up", [["ArrowUp"]]),
        ("F5", [["F5"]]),
        ("minus", [["-"]]),
        ("space", [["Space"]]),
        (" ", [["Space"]]),
        ("A", [["A"]]),
    ],
)
def test_xdotool_key_arguments_become_playwright_chords(
    given: str, expected: list[list[str]]
) -> None:
    assert xdotool_chords(given) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (["CTRL", "A"], ["Control", "a"]),
        (["ENTER"], ["Enter"]),
        (["ESC"], ["Escape"]),
        (["ARROWLEFT"], ["ArrowLeft"]),
        (["SHIFT", "A"], ["Shift", "A"]),
        (["CMD", "c"], ["Meta", "c"]),
        (["SPACE"], ["Space"]),
    ],
)
def test_openai_key_lists_become_playwright_chords(given: list[str], expected: list[str]) -> None:
    assert chord(given) == expected


def test_an_unknown_name_passes_through_for_playwright_to_judge() -> None:
    assert playwright_key("AudioVolumeMute") == "AudioVolumeMute"
    assert playwright_key("x") == "x"

"""Trajectory files: round trip, and one-line errors that name the file and the bad field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from endstate.agents.actions import (
    ACTION_TYPES,
    Action,
    Click,
    Done,
    Fill,
    Target,
    Trajectory,
    TrajectoryError,
    Upload,
    action_schema,
    load_trajectory,
    save_trajectory,
)
from endstate.errors import EndstateError


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "traj.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def error_for(tmp_path: Path, data: Any) -> str:
    path = write(tmp_path, data)
    with pytest.raises(TrajectoryError) as info:
        load_trajectory(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    return message.removeprefix(f"{path}: ")


def test_round_trip_keeps_every_action(tmp_path: Path) -> None:
    actions: list[Action] = [
        Fill(target=Target(label="Service date"), value="03/14/2026"),
        Click(target=Target(role="button", name="Open", nth=1)),
        Upload(target=Target(label="Attachment"), path=["a.pdf", "b.pdf"]),
        Done(message="saved"),
    ]
    path = save_trajectory(actions, tmp_path / "sub" / "t.json", description="demo")
    loaded = load_trajectory(path)
    assert loaded == Trajectory(actions=actions, description="demo")
    raw = json.loads(path.read_text())
    assert raw["version"] == 1
    assert raw["actions"][1] == {
        "type": "click",
        "target": {"role": "button", "name": "Open", "nth": 1},
    }
    assert not list(path.parent.glob(".*.tmp"))


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {"version": 1, "actions": [{"type": "fill", "target": {"label": "Date"}}]},
            "actions[0].value: Field required (fill action)",
        ),
        (
            {"version": 1, "actions": [{"type": "done", "message": "x"}, {"type": "klick"}]},
            "actions[1]: unknown action type 'klick' (one of: click, fill,",
        ),
        (
            {"version": 1, "actions": [{"target": {"label": "Date"}}]},
            "actions[0]: missing 'type' (one of: click,",
        ),
        (
            {"version": 1, "actions": [{"type": "click", "target": {"role": "btn"}}]},
            "actions[0].target.role: unknown ARIA role 'btn' (click action)",
        ),
        (
            {"version": 1, "actions": [{"type": "click", "target": {"css": "#id"}}]},
            "actions[0].target.css: unknown field (click action)",
        ),
        (
            {"version": 1, "actions": [{"type": "wait", "seconds": 99}]},
            "actions[0].seconds: Input should be less than or equal to 10",
        ),
        (
            {"version": 1, "actions": [{"type": "click", "target": {"label": "A", "text": "B"}}]},
            "actions[0].target: give exactly one of 'role'",
        ),
        ({"version": 2, "actions": []}, "version: Input should be 1"),
        ({"version": 1}, "actions: Field required"),
        ([], "Input should be a valid dictionary"),
    ],
)
def test_invalid_files_give_one_line_naming_the_field(
    tmp_path: Path, data: Any, expected: str
) -> None:
    assert error_for(tmp_path, data).startswith(expected)


def test_several_errors_are_counted(tmp_path: Path) -> None:
    message = error_for(tmp_path, {"version": 1, "actions": [{"type": "fill"}]})
    assert message.endswith("(+1 more)")


def test_bad_json_names_line_and_column(tmp_path: Path) -> None:
    message = error_for(tmp_path, '{"version": 1,\n "actions": [}')
    assert message.startswith("invalid JSON at line 2 column")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(EndstateError, match="trajectory file not found"):
        load_trajectory(tmp_path / "absent.json")


def test_schema_is_a_discriminated_union_of_every_action() -> None:
    schema = action_schema()
    assert schema["discriminator"]["propertyName"] == "type"
    assert set(schema["discriminator"]["mapping"]) == set(ACTION_TYPES)
    assert set(ACTION_TYPES) == {
        "click",
        "fill",
        "select",
        "press",
        "check",
        "uncheck",
        "upload",
        "download",
        "goto",
        "wait",
        "done",
        "give_up",
    }


def test_a_trajectory_past_the_decoders_limits_is_a_one_line_error(tmp_path: Path) -> None:
    digits = '{"version": 1, "actions": [{"type": "wait", "seconds": ' + "9" * 5000 + "}]}"
    assert error_for(tmp_path, digits).startswith("unreadable number: Exceeds the limit")
    assert error_for(tmp_path, "[" * 100_000 + "]" * 100_000) == "nested too deeply to read"

"""Agent options: each kind validates its own, the older flags are aliases of them, and what a
run pins is what a resume and a worker make the agent from again."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from endstate.agents.registry import agent_options, made_with, make_agent
from endstate.cli import app
from endstate.cli.extra_flags import (
    agent_options_given,
    drop_inapplicable_aliases,
    executor_options_given,
    read_extra,
)
from endstate.errors import EndstateError


def test_aliases_and_agent_options_gather_into_one_mapping() -> None:
    extra = read_extra(
        [
            *("--agent-env", "OTHER", "--isolation=none", "--marks", "--viewport", "1024x768"),
            *("--ray-worker-env", "2:X=1", "--ray-address=auto"),
        ]
    )
    given = agent_options_given(["pass_env=TOKEN", "egress=api.example:443"], extra)
    assert given == {
        "pass_env": ["OTHER", "TOKEN"],
        "isolation": "none",
        "marks": True,
        "viewport": "1024x768",
        "egress": "api.example:443",
    }
    assert agent_options_given([], read_extra(["--no-marks"])) == {"marks": False}
    assert agent_options_given([], read_extra([])) is None  # a resume keeps its own
    ray = executor_options_given(["worker_env=Y", "cpus_per_worker=2"], extra)
    assert ray == {"worker_env": ["2:X=1", "Y"], "address": "auto", "cpus_per_worker": "2"}


@pytest.mark.parametrize(
    ("options", "extra", "message"),
    [
        (["observe"], [], "--agent-option 'observe': expected KEY=VALUE"),
        ([], ["--bogus", "1"], "no such option: --bogus"),
        ([], ["--viewport"], "--viewport needs a value"),
    ],
)
def test_malformed_options_are_one_line_errors(
    options: list[str], extra: list[str], message: str
) -> None:
    with pytest.raises(EndstateError, match=message):
        agent_options_given(options, read_extra(extra))


def test_an_executor_option_that_is_not_one_is_named() -> None:
    with pytest.raises(EndstateError, match="--executor-option 'adress': expected one of address"):
        executor_options_given(["adress=auto"], read_extra([]))
    with pytest.raises(EndstateError, match="'address' given more than once"):
        executor_options_given(["address=a"], read_extra(["--ray-address", "b"]))


def test_each_kind_validates_its_own_options_and_pins_every_field() -> None:
    pinned = agent_options("command:python agent.py", {"pass_env": "TOKEN"})
    assert {k: pinned[k] for k in ("pass_env", "isolation", "mounts", "egress")} == {
        "pass_env": ["TOKEN"],
        "isolation": "sandbox",
        "mounts": [],
        "egress": [],
    }
    assert pinned["build_root"] == [] and "__pycache__" in pinned["build_ignore"]
    assert agent_options("null") == {}
    cu = agent_options("cu-chat:m", {"viewport": "1024X768", "marks": "true"})
    assert (cu["viewport"], cu["marks"], cu["observe"]) == ("1024x768", True, "screenshot")


@pytest.mark.parametrize(
    ("spec", "given", "message"),
    [
        ("null", {"observe": "both"}, "agent kind 'null' has no option 'observe'"),
        ("llm:m", {"observe": "both"}, r"its options: action_timeout_s, base_url, max_steps"),
        ("llm:m", {"prompt_mode": "chatty"}, "option prompt_mode = 'chatty'"),
        ("cu-chat:m", {"viewport": "wide"}, r"option viewport = 'wide'.*WIDTHxHEIGHT"),
        ("replay:x", {"action_timeout_s": "0"}, "option action_timeout_s = '0'"),
        ("llm:m", {"temperature": ["0", "1"]}, "'temperature' given more than once"),
    ],
)
def test_an_option_the_kind_does_not_take_or_a_bad_value_is_named(
    spec: str, given: dict[str, object], message: str
) -> None:
    with pytest.raises(EndstateError, match=message):
        agent_options(spec, given)


def test_a_made_agent_carries_the_options_it_was_made_from() -> None:
    agent = make_agent("llm:m", {"base_url": "http://127.0.0.1:9/v1", "temperature": "0.5"})
    options = made_with(agent)
    assert options is not None
    assert (options["base_url"], options["temperature"]) == ("http://127.0.0.1:9/v1", 0.5)
    assert agent.config()["temperature"] == 0.5


def test_the_run_command_refuses_an_option_the_agent_kind_lacks(tmp_path: Path) -> None:
    args = ["run", "--agent", "null", "--agent-option", "observe=both", "--out", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    assert "agent kind 'null' has no option 'observe'" in str(result.exception)
    assert not any(tmp_path.iterdir())  # refused before anything ran


def test_an_older_flag_for_a_kind_without_the_option_is_a_note_not_an_error() -> None:
    from endstate.agents.browser_options import ActingOptions
    from endstate.agents.options import NoOptions

    given = {"observe": "both", "action_timeout_s": "9"}
    kept, notes = drop_inapplicable_aliases(
        given, {"observe", "action_timeout_s"}, "replay", ActingOptions
    )
    assert kept == {"action_timeout_s": "9"}
    assert notes == ["--observe does not apply to agent kind 'replay': ignored"]
    # Given as --agent-option (not an alias), it is kept, for the kind to refuse.
    assert drop_inapplicable_aliases(given, set(), "null", NoOptions)[0] == given


def test_the_agents_command_lists_every_kind_with_its_options() -> None:
    result = CliRunner().invoke(app, ["agents"])
    assert result.exit_code == 0, result.output
    for shown in ("cu-anthropic:MODEL", "keep_images", "command:CMD", "pass_env", "(no options)"):
        assert shown in result.output

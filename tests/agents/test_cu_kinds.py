"""The computer-use agent kinds are registered, and their options reach the backends.

(The loop they wrap, `endstate.agents.computer_loop`, is tested with it; this only covers what
the factories do before handing a backend to it.)
"""

from __future__ import annotations

import pytest

from endstate.agents.registry import agent_kinds, make_agent
from endstate.errors import EndstateError


def test_both_vendors_are_agent_kinds_taking_a_model() -> None:
    kinds = agent_kinds()
    assert kinds["cu-anthropic"].usage == "cu-anthropic:MODEL"
    assert kinds["cu-openai"].usage == "cu-openai:MODEL"


def test_an_unknown_tool_version_is_a_one_line_error_before_anything_runs() -> None:
    with pytest.raises(EndstateError, match=r"tool version 'computer_2099'.*computer_20250124"):
        make_agent("cu-anthropic:claude-test", dict(tool_version="computer_2099"))
    with pytest.raises(EndstateError, match="keep_images = 0"):
        make_agent("cu-anthropic:claude-test", dict(keep_images=0))


def test_a_spec_without_a_model_is_refused() -> None:
    with pytest.raises(EndstateError, match=r"expected .*cu-openai:MODEL"):
        make_agent("cu-openai")

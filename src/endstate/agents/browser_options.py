"""The options of the built-in agents that act on a page or call a model: how long one action
waits, and which model endpoint answers with what decoding."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from endstate.agents.options import KindOptions

OPENAI_URL = "https://api.openai.com/v1"


class ActingOptions(KindOptions):
    """A replay agent's: the wait for an action's target, which a loaded machine may need
    longer than the default."""

    action_timeout_s: float = Field(
        default=3.0, ge=0.1, description="Seconds one action waits for its target."
    )


class ToolsModelOptions(KindOptions):
    """A chat model calling a system's tools (`llm-tools:`)."""

    base_url: str = Field(default=OPENAI_URL, description="OpenAI-compatible endpoint.")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Decoding temperature.")
    max_steps: int = Field(default=50, ge=1, description="Model turns (defaults to --max-steps).")


class LLMOptions(ToolsModelOptions, ActingOptions):
    """A chat model acting over the accessibility tree (`llm:`)."""

    prompt_mode: Literal["task", "task+guidance"] = Field(
        default="task", description="task, or task+guidance (the portal's own guidance added)."
    )

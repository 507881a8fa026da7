"""The options of the computer-use agents (`cu-*`): what the model is shown, at what browser
size, and how much of it the trace keeps."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from endstate.agents.options import KindOptions

DEFAULT_VIEWPORT = "1280x800"
_SIZE = re.compile(r"\A(\d{2,5})x(\d{2,5})\Z")


def viewport_size(text: str) -> tuple[int, int]:
    """`1280x800` as (width, height); anything else is a ValueError saying what is expected."""
    found = _SIZE.match(text.strip().lower())
    width, height = (int(found.group(1)), int(found.group(2))) if found else (0, 0)
    if not (200 <= width <= 7680 and 200 <= height <= 4320):
        raise ValueError(
            f"{text!r}: expected WIDTHxHEIGHT in CSS pixels, e.g. {DEFAULT_VIEWPORT} "
            "(each from 200 to 7680x4320)"
        )
    return width, height


class ComputerUseOptions(KindOptions):
    base_url: str | None = Field(
        default=None, description="Model endpoint (cu-chat needs one; others have a default)."
    )
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Decoding temperature.")
    max_steps: int = Field(default=50, ge=1, description="Actions (defaults to --max-steps).")
    observe: Literal["screenshot", "accessibility", "both"] = Field(
        default="screenshot", description="What the model is shown each turn."
    )
    prompt_mode: Literal["task", "task+guidance"] = Field(
        default="task", description="task, or task+guidance (the portal's own guidance added)."
    )
    marks: bool = Field(default=False, description="Set-of-marks drawn on the screenshot.")
    viewport: str = Field(default=DEFAULT_VIEWPORT, description="Browser size, WIDTHxHEIGHT.")
    screens_cap_mb: float = Field(
        default=20.0, gt=0, description="MB of screenshots kept in each attempt's trace."
    )

    @field_validator("viewport")
    @classmethod
    def _size(cls, value: str) -> str:
        width, height = viewport_size(value)
        return f"{width}x{height}"


class AnthropicComputerOptions(ComputerUseOptions):
    tool_version: str | None = Field(
        default=None, description="The computer tool's pinned version (default: the latest known)."
    )
    keep_images: int = Field(default=3, ge=1, description="Screenshots kept in the conversation.")

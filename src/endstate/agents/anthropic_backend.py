"""Anthropic's computer-use tool, spoken through the official `anthropic` SDK's beta Messages API.

The model gets the task and a screenshot, answers with `computer` tool_use blocks, and each next
request carries one tool_result per tool_use (is_error for those that failed or were refused),
the new screenshot as a base64 PNG image block on the last of them. A reply with no tool_use is
the model's final message (a turn with no actions). The tool version and its beta flag are one
pinned pair (TOOL_VERSIONS), recorded in `config()`.

Context policy: the conversation keeps every text and tool call, but only the most recent
`keep_images` screenshots (default 3); older image blocks are replaced by a short text
placeholder, so a long attempt does not grow past the context window or the budget. The price:
the prompt prefix changes as images age out, which limits what prompt caching can reuse.

Sampling: the Messages API (version 2026-10-21, SDK 2.x) takes no temperature; the model's own
sampling is used and `config()` records temperature as None.

Usage per turn: input tokens are the response's input_tokens plus cache-creation and cache-read
input tokens (all are billed input); output_tokens as reported; images counts the screenshots
newly sent in the call (one per turn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from anthropic import AsyncAnthropic

from endstate.agents.anthropic_actions import SCROLL_TICK_PX, ComputerToolTranslator
from endstate.agents.computer import (
    ActionOutcome,
    CoordAction,
    ModelTurn,
    Screen,
    Screenshot,
    Usage,
)
from endstate.agents.cu_shared import (
    COMPUTER_PROMPT,
    NOT_PERFORMED,
    PROMPT_VERSION,
    ActionRefused,
    CallResult,
    api_key,
    gather_outcomes,
    png_base64,
    vendor_endpoint,
)
from endstate.agents.model_calls import RetryPolicy, call_with_retries
from endstate.endpoints import Endpoint
from endstate.errors import EndstateError

if TYPE_CHECKING:
    from anthropic.types.beta import BetaMessage, BetaMessageParam, BetaToolUnionParam

TOOL_VERSIONS: dict[str, str] = {  # the computer tool's type -> the beta flag that enables it
    "computer_20241022": "computer-use-2024-10-22",
    "computer_20250124": "computer-use-2025-01-24",
    "computer_20251124": "computer-use-2025-11-24",
}
DEFAULT_TOOL_VERSION = "computer_20250124"
IMAGE_PLACEHOLDER = "[an earlier screenshot, removed to keep the conversation short]"
_NOTED_STOPS = frozenset({"max_tokens", "refusal", "model_context_window_exceeded", "pause_turn"})


@dataclass(frozen=True)
class _Pending:
    """One tool_use of the last reply, and its result if the backend answered it itself."""

    call_id: str
    answer: CallResult | None = None


class AnthropicComputerBackend:
    """A ComputerBackend for Claude models with the `computer` tool."""

    vendor = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        tool_version: str = DEFAULT_TOOL_VERSION,
        max_tokens: int = 4096,
        keep_images: int = 3,
        base_url: str | None = None,
        key_env: str = "ANTHROPIC_API_KEY",
        retry: RetryPolicy | None = None,
    ) -> None:
        if tool_version not in TOOL_VERSIONS:
            known = ", ".join(TOOL_VERSIONS)
            raise EndstateError(f"anthropic tool version {tool_version!r}: expected one of {known}")
        if keep_images < 1:
            raise EndstateError(f"keep_images {keep_images}: keep at least the latest screenshot")
        self.model = model
        self.tool_version = tool_version
        self.max_tokens = max_tokens
        self.keep_images = keep_images
        self._retry = retry
        self._endpoint = vendor_endpoint("anthropic", model, base_url, key_env)
        self._client = AsyncAnthropic(api_key=api_key(key_env), base_url=base_url, max_retries=0)
        self._messages: list[dict[str, Any]] = []
        self._pending: list[_Pending] = []
        self._task = ""
        self._translator: ComputerToolTranslator | None = None

    def endpoint(self) -> Endpoint:
        """Where its calls go, for the check before the run."""
        return self._endpoint

    def config(self) -> dict[str, Any]:
        return {
            "vendor": self.vendor,
            "model": self.model,
            "tool_version": self.tool_version,
            "beta": TOOL_VERSIONS[self.tool_version],
            "max_tokens": self.max_tokens,
            "temperature": None,
            "prompt_version": PROMPT_VERSION,
            "keep_images": self.keep_images,
            "scroll_tick_px": SCROLL_TICK_PX,
        }

    async def begin(self, task_text: str, screen: Screen) -> None:
        self._task = task_text
        self._translator = ComputerToolTranslator(screen.viewport)
        self._messages = []
        self._pending = []

    async def turn(self, outcomes: list[ActionOutcome], screen: Screen) -> ModelTurn:
        if self._translator is None:
            raise RuntimeError("turn() before begin()")
        if not self._messages:
            opening = [{"type": "text", "text": self._task}, _image(screen)]
            self._messages.append({"role": "user", "content": opening})
        else:
            self._messages.append({"role": "user", "content": self._results(outcomes, screen)})
        retain_images(self._messages, self.keep_images)
        usage = Usage(images=1)
        viewport = self._translator.viewport
        tool = {
            "type": self.tool_version,
            "name": "computer",
            "display_width_px": viewport.width,
            "display_height_px": viewport.height,
        }
        reply: BetaMessage = await call_with_retries(
            lambda: self._client.beta.messages.create(
                model=self.model,
                max_tokens=self.max_tokens,
                system=COMPUTER_PROMPT,
                messages=cast("list[BetaMessageParam]", self._messages),
                tools=cast("list[BetaToolUnionParam]", [tool]),
                betas=[TOOL_VERSIONS[self.tool_version]],
            ),
            usage,
            self._retry,
        )
        u = reply.usage
        usage.input_tokens += (
            u.input_tokens + (u.cache_creation_input_tokens or 0) + (u.cache_read_input_tokens or 0)
        )
        usage.output_tokens += u.output_tokens
        self._messages.append({"role": "assistant", "content": _assistant_content(reply)})
        return self._read(reply, usage)

    def _read(self, reply: BetaMessage, usage: Usage) -> ModelTurn:
        """The reply's text and actions; each tool_use remembered for the next results."""
        assert self._translator is not None
        texts: list[str] = []
        actions: list[tuple[str, CoordAction]] = []
        self._pending = []
        for block in reply.content:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                try:
                    if block.name != "computer":
                        raise ActionRefused(f"unknown tool {block.name!r}: only 'computer' exists")
                    translation = self._translator.translate(block.input)
                except ActionRefused as refused:
                    self._pending.append(_Pending(block.id, CallResult(False, str(refused))))
                    continue
                if translation.actions:
                    actions += [(block.id, action) for action in translation.actions]
                    self._pending.append(_Pending(block.id))
                else:
                    self._pending.append(_Pending(block.id, CallResult(True, translation.answer)))
        if self._pending and not actions:
            # Every call was answered here: a fresh look keeps the attempt going (no actions
            # would end it), and its outcome is not what the model is told.
            actions.append((self._pending[-1].call_id, Screenshot()))
        if reply.stop_reason in _NOTED_STOPS:
            texts.append(f"[stop_reason: {reply.stop_reason}]")
        return ModelTurn(text="\n".join(texts), actions=actions, usage=usage)

    def _results(self, outcomes: list[ActionOutcome], screen: Screen) -> list[dict[str, Any]]:
        """One tool_result per pending tool_use, the new screenshot on the last of them."""
        if not self._pending:
            return [{"type": "text", "text": "The screen now:"}, _image(screen)]
        gathered = gather_outcomes(outcomes)
        blocks: list[dict[str, Any]] = []
        for pending in self._pending:
            result = pending.answer or gathered.get(pending.call_id, NOT_PERFORMED)
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": pending.call_id,
                "content": [{"type": "text", "text": result.message}],
            }
            if not result.ok:
                block["is_error"] = True
            blocks.append(block)
        blocks[-1]["content"].append(_image(screen))
        self._pending = []
        return blocks

    async def close(self) -> None:
        await self._client.close()


def _image(screen: Screen) -> dict[str, Any]:
    source = {"type": "base64", "media_type": "image/png", "data": png_base64(screen)}
    return {"type": "image", "source": source}


def _assistant_content(reply: BetaMessage) -> list[dict[str, Any]]:
    """The reply as the next request's assistant turn: text and tool calls kept verbatim."""
    content: list[dict[str, Any]] = []
    for block in reply.content:
        if block.type == "text":
            content.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            call = {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
            content.append(call)
        else:
            content.append(block.model_dump(mode="json", exclude_none=True))
    return content or [{"type": "text", "text": "(no reply)"}]


def retain_images(messages: list[dict[str, Any]], keep: int) -> None:
    """Keep the newest `keep` image blocks (in messages and in tool results); older ones become
    a text placeholder."""
    seen = 0
    for message in reversed(messages):
        content = message["content"]
        if not isinstance(content, list):
            continue
        for blocks in reversed([content, *_result_contents(content)]):
            for i in reversed(range(len(blocks))):
                if blocks[i].get("type") == "image":
                    seen += 1
                    if seen > keep:
                        blocks[i] = {"type": "text", "text": IMAGE_PLACEHOLDER}


def _result_contents(content: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [
        b["content"]
        for b in content
        if b.get("type") == "tool_result" and isinstance(b.get("content"), list)
    ]

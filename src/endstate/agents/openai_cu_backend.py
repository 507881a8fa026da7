"""OpenAI's computer-use interface, spoken through the `openai` SDK's Responses API.

The model gets the task and a screenshot with the `computer_use_preview` tool (environment
"browser", the pinned viewport as its display) and answers with `computer_call` items. Each next
request chains on `previous_response_id` and carries one `computer_call_output` per call: the new
screenshot as a `computer_screenshot` data URL, with the page's `current_url` beside it (OpenAI's
guide asks browser environments for it, to sharpen its safety checks; the SDK's types omit it).
The output item has no error field, so actions that failed or were refused are told to the model
in a user message after the outputs. A response with no computer_call is the model's final
message (a turn with no actions).

Safety checks: a call's `pending_safety_checks` are acknowledged in its output (the harness
stands in for the human, who is not there) AND recorded: each appears in the turn's text as
"[safety check acknowledged: CODE] MESSAGE", so the trace shows it, and in `safety_checks`.

Context policy: the server holds the conversation (previous_response_id) and drops the oldest
items when it overflows (`truncation="auto"`); only new items are sent each turn.

Usage per turn: response.usage input_tokens (cached tokens included) and output_tokens
(reasoning included); images counts the screenshots sent in the call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from openai import AsyncOpenAI

from endstate.agents.computer import (
    ActionOutcome,
    CoordAction,
    ModelTurn,
    Screen,
    Screenshot,
    Usage,
    Viewport,
)
from endstate.agents.cu_shared import (
    COMPUTER_PROMPT,
    NOT_PERFORMED,
    PROMPT_VERSION,
    ActionRefused,
    api_key,
    gather_outcomes,
    png_data_url,
    vendor_endpoint,
)
from endstate.agents.model_calls import RetryPolicy, call_with_retries
from endstate.agents.openai_cu_actions import WAIT_SECONDS, translate
from endstate.endpoints import Endpoint

if TYPE_CHECKING:
    from openai.types.responses import Response, ResponseComputerToolCall

TOOL_TYPE = "computer_use_preview"


@dataclass
class _Pending:
    """One computer_call of the last response: its safety checks and any refusals."""

    call_id: str
    safety_checks: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    performs: bool = False


class OpenAIComputerBackend:
    """A ComputerBackend for OpenAI's computer-use models."""

    vendor = "openai"

    def __init__(
        self,
        model: str,
        *,
        temperature: float | None = None,
        max_output_tokens: int | None = None,
        base_url: str | None = None,
        key_env: str = "OPENAI_API_KEY",
        retry: RetryPolicy | None = None,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.max_output_tokens = max_output_tokens
        self._retry = retry
        self._endpoint = vendor_endpoint("openai-responses", model, base_url, key_env)
        self._client = AsyncOpenAI(api_key=api_key(key_env), base_url=base_url, max_retries=0)
        self._task = ""
        self._tool: dict[str, Any] = {}
        self._viewport = Viewport()
        self._previous: str | None = None
        self._pending: list[_Pending] = []
        self.safety_checks: list[dict[str, Any]] = []  # every check acknowledged, in order

    def endpoint(self) -> Endpoint:
        """Where its calls go, for the check before the run."""
        return self._endpoint

    def config(self) -> dict[str, Any]:
        return {
            "vendor": self.vendor,
            "model": self.model,
            "tool": TOOL_TYPE,
            "environment": "browser",
            "truncation": "auto",
            "temperature": self.temperature,
            "max_output_tokens": self.max_output_tokens,
            "prompt_version": PROMPT_VERSION,
            "wait_seconds": WAIT_SECONDS,
        }

    async def begin(self, task_text: str, screen: Screen) -> None:
        self._task = task_text
        self._viewport = screen.viewport
        self._tool = {
            "type": TOOL_TYPE,
            "display_width": screen.viewport.width,
            "display_height": screen.viewport.height,
            "environment": "browser",
        }
        self._previous = None
        self._pending = []
        self.safety_checks = []

    async def turn(self, outcomes: list[ActionOutcome], screen: Screen) -> ModelTurn:
        if not self._tool:
            raise RuntimeError("turn() before begin()")
        if self._previous is None:
            items = [_user_message(self._task, screen)]
        else:
            items = self._outputs(outcomes, screen)
        usage = Usage(images=_images(items))
        extra: dict[str, Any] = {}
        if self._previous is not None:
            extra["previous_response_id"] = self._previous
        if self.temperature is not None:
            extra["temperature"] = self.temperature
        if self.max_output_tokens is not None:
            extra["max_output_tokens"] = self.max_output_tokens
        response: Response = await call_with_retries(
            lambda: self._client.responses.create(
                model=self.model,
                instructions=COMPUTER_PROMPT,
                input=cast("Any", items),
                tools=cast("Any", [self._tool]),
                truncation="auto",
                **extra,
            ),
            usage,
            self._retry,
        )
        if response.usage is not None:
            usage.input_tokens += response.usage.input_tokens
            usage.output_tokens += response.usage.output_tokens
        self._previous = response.id
        return self._read(response, usage)

    def _read(self, response: Response, usage: Usage) -> ModelTurn:
        texts: list[str] = []
        actions: list[tuple[str, CoordAction]] = []
        self._pending = []
        for item in response.output:
            if item.type == "message":
                texts += [c.text for c in item.content if c.type == "output_text"]
            elif item.type == "computer_call":
                pending = self._pend(item, texts)
                for action in _call_actions(item):
                    try:
                        actions.append((item.call_id, translate(action, self._viewport)))
                        pending.performs = True
                    except ActionRefused as refused:
                        pending.refusals.append(str(refused))
        if self._pending and not actions:
            # Every action was refused: a fresh look keeps the attempt going.
            actions.append((self._pending[-1].call_id, Screenshot()))
        return ModelTurn(text="\n".join(texts), actions=actions, usage=usage)

    def _pend(self, call: ResponseComputerToolCall, texts: list[str]) -> _Pending:
        """Remember the call; its safety checks are recorded now, acknowledged next turn."""
        checks = [c.model_dump(mode="json", exclude_none=True) for c in call.pending_safety_checks]
        for check in checks:
            texts.append(
                f"[safety check acknowledged: {check.get('code', '?')}] {check.get('message', '')}"
            )
        self.safety_checks += checks
        pending = _Pending(call.call_id, safety_checks=checks)
        self._pending.append(pending)
        return pending

    def _outputs(self, outcomes: list[ActionOutcome], screen: Screen) -> list[dict[str, Any]]:
        """One computer_call_output per pending call; failures told after them."""
        if not self._pending:
            return [_user_message("The screen now:", screen)]
        gathered = gather_outcomes(outcomes)
        items: list[dict[str, Any]] = []
        failures: list[str] = []
        image = {"type": "computer_screenshot", "image_url": png_data_url(screen)}
        for pending in self._pending:
            item: dict[str, Any] = {
                "type": "computer_call_output",
                "call_id": pending.call_id,
                "output": {**image, "current_url": screen.url},
            }
            if pending.safety_checks:
                item["acknowledged_safety_checks"] = pending.safety_checks
            items.append(item)
            failures += pending.refusals
            result = gathered.get(pending.call_id, NOT_PERFORMED) if pending.performs else None
            if result is not None and not result.ok:
                failures.append(result.message)
        if failures:
            text = "These actions failed:\n" + "\n".join(f"- {f}" for f in failures)
            items.append({"role": "user", "content": [{"type": "input_text", "text": text}]})
        self._pending = []
        return items

    async def close(self) -> None:
        await self._client.close()


def _user_message(text: str, screen: Screen) -> dict[str, Any]:
    content = [
        {"type": "input_text", "text": text},
        {"type": "input_image", "image_url": png_data_url(screen), "detail": "auto"},
    ]
    return {"role": "user", "content": content}


def _call_actions(call: ResponseComputerToolCall) -> list[Any]:
    """The call's actions: one `action`, or the batched `actions` of the newer tool."""
    if call.actions:
        return list(call.actions)
    return [call.action] if call.action is not None else [{"type": None}]


def _images(items: list[dict[str, Any]]) -> int:
    """Screenshots in the items sent: one per call output, and any in a user message."""
    outputs = sum(1 for item in items if item.get("type") == "computer_call_output")
    shown = sum(
        1
        for item in items
        if item.get("role") == "user"
        for part in item["content"]
        if part.get("type") == "input_image"
    )
    return outputs + shown

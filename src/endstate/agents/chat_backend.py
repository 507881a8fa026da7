"""A computer-use backend over plain chat completions: any vision model behind an
OpenAI-compatible endpoint (vLLM, Ollama, Gemini's compatibility layer, ...).

Such models have no computer tool, so the coordinate action space is taught in the system
prompt and each reply must be exactly one JSON action, parsed strictly: anything else costs
a step and the reason is shown back. Each turn the model is shown the screenshot (as an
image_url data URL) and/or the accessibility text, with the set-of-marks list when marks
are on, and the results of its last actions.

Context policy: only the most recent `keep_screens` observations (default 3) stay in the
conversation whole; older ones are replaced by a one-line placeholder (their header, URL and
action results stay). The model's replies are all kept. This bounds what each call costs
while the model still remembers what it did.
"""

from __future__ import annotations

import base64
import hashlib
import os
from typing import TYPE_CHECKING, Any

from openai import AsyncOpenAI, omit
from pydantic import ValidationError

from endstate.agents.actions import MAX_WAIT_SECONDS, describe_validation_error
from endstate.agents.computer import (
    COORD_ACTION_ADAPTER,
    ActionOutcome,
    CoordAction,
    ModelTurn,
    Screen,
    Usage,
)
from endstate.agents.coord_perform import normalize_keys
from endstate.agents.llm import DUMMY_KEY, reply_object
from endstate.agents.model_calls import RetryPolicy, call_with_retries
from endstate.agents.screen import render_marks
from endstate.endpoints import Endpoint

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionContentPartParam, ChatCompletionMessageParam

GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta/openai/"
DEFAULT_KEEP_SCREENS = 3

SYSTEM_PROMPT = """\
You operate a web browser to complete one healthcare operations task. Each turn you are shown
the page (a screenshot and/or its accessibility text) and the results of your previous
actions. The screen is {width}x{height} CSS pixels; x grows to the right, y downwards, and
(0, 0) is the top-left corner.

Reply with exactly one action as a single JSON object and nothing else: no prose, no list, at
most one ```json fence around it. Coordinates are integers inside the screen.

Actions:
{{"type": "click_at", "x": 640, "y": 400}}   optional "button": "left" | "right" | "middle",
  "clicks": 2 for a double click, 3 for a triple click
{{"type": "move_to", "x": 640, "y": 400}}
{{"type": "drag", "path": [{{"x": 100, "y": 200}}, {{"x": 300, "y": 200}}]}}
  press at the first point, move through the others, release at the last
{{"type": "scroll_at", "x": 640, "y": 400, "dx": 0, "dy": 500}}   positive dy scrolls down
{{"type": "type_text", "text": "Dana Reyes"}}   types into whatever has focus; click a field first
{{"type": "key", "keys": ["Control", "a"]}}   presses the keys together ("Enter", "Tab", ...)
{{"type": "pause", "seconds": 2}}   (at most {max_wait:g})
{{"type": "screenshot"}}   look again without acting
{{"type": "done", "message": "what you did and any confirmation numbers"}}
{{"type": "give_up", "message": "why the task cannot be completed"}}

When elements are marked, "[n] role 'name' at (x, y)" gives the centre of mark n. Use "done"
when the task is complete, "give_up" when it cannot be completed. Your final message is
recorded but does not decide whether the task was completed: only what the systems recorded
does.
"""
PROMPT_VERSION = hashlib.sha256(SYSTEM_PROMPT.encode()).hexdigest()[:16]


def parse_coord_reply(reply: str | None) -> tuple[CoordAction | None, str | None]:
    """One coordinate action from a reply, or the reason it is not one (shown to the model).
    Key names are normalised ("ctrl+a", "Return"), the one leniency a strict parse allows."""
    data, problem = reply_object(reply)
    if data is None:
        return None, problem
    keys = data.get("keys")
    if data.get("type") == "key" and isinstance(keys, str | list):
        data["keys"] = normalize_keys(keys if isinstance(keys, str) else [str(k) for k in keys])
    try:
        return COORD_ACTION_ADAPTER.validate_python(data), None
    except ValidationError as exc:
        return None, f"the action is invalid: {describe_validation_error(exc)}"


class ChatBackend:
    """A ComputerBackend speaking chat completions through the `openai` SDK."""

    def __init__(
        self,
        model: str,
        base_url: str | None,
        *,
        vendor: str = "openai-chat",
        api_key_env: str = "ENDSTATE_AGENT_API_KEY",
        keep_screens: int = DEFAULT_KEEP_SCREENS,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        request_timeout: float = 120.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.vendor = vendor
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.keep_screens = max(1, keep_screens)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.request_timeout = request_timeout
        self.retry = retry or RetryPolicy()
        self._client: AsyncOpenAI | None = None
        self._messages: list[ChatCompletionMessageParam] = []
        self._observed: list[int] = []  # indexes of messages holding a whole observation
        self._problem: str | None = None  # why the last reply could not be read
        self._turns = 0

    def config(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "prompt_version": PROMPT_VERSION,
            "keep_screens": self.keep_screens,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def _found_key(self) -> str | None:
        fallback = os.environ.get("OPENAI_API_KEY") if self.vendor == "openai-chat" else None
        return os.environ.get(self.api_key_env) or fallback

    def _api_key(self) -> str:
        return self._found_key() or DUMMY_KEY

    def endpoint(self) -> Endpoint:
        """Where its calls go, for the check before the run."""
        key = self._found_key()
        fallback = " or $OPENAI_API_KEY" if self.vendor == "openai-chat" else ""
        return Endpoint(
            role="agent model",
            api="openai-chat",
            model=self.model,
            base_url=self.base_url,
            api_key=key or DUMMY_KEY,
            key_set=key is not None,
            key_hint=f"${self.api_key_env}{fallback}",
            option="--agent-base-url",
        )

    async def begin(self, task_text: str, screen: Screen) -> None:
        self._client = AsyncOpenAI(
            api_key=self._api_key(),
            base_url=self.base_url,
            timeout=self.request_timeout,
            max_retries=0,  # retries are the harness's, counted (call_with_retries)
        )
        system = SYSTEM_PROMPT.format(
            width=screen.viewport.width, height=screen.viewport.height, max_wait=MAX_WAIT_SECONDS
        )
        self._messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": task_text},
        ]

    async def turn(self, outcomes: list[ActionOutcome], screen: Screen) -> ModelTurn:
        assert self._client is not None, "begin() first"
        client = self._client
        self._turns += 1
        self._messages.append({"role": "user", "content": self._observation(outcomes, screen)})
        self._observed.append(len(self._messages) - 1)
        self._forget_old_screens()
        usage = Usage(images=_images(self._messages))
        response = await call_with_retries(
            lambda: client.chat.completions.create(
                model=self.model,
                messages=self._messages,
                temperature=self.temperature if self.temperature is not None else omit,
                max_tokens=self.max_tokens if self.max_tokens is not None else omit,
            ),
            usage,
            self.retry,
        )
        if response.usage is not None:
            usage.input_tokens += response.usage.prompt_tokens
            usage.output_tokens += response.usage.completion_tokens
        reply = response.choices[0].message.content if response.choices else None
        self._messages.append({"role": "assistant", "content": reply or ""})
        action, problem = parse_coord_reply(reply)
        self._problem = problem
        if action is None:
            return ModelTurn(text=reply or "", usage=usage, problem=problem)
        return ModelTurn(actions=[("", action)], usage=usage)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _header(self, outcomes: list[ActionOutcome], screen: Screen) -> str:
        if self._problem is not None:
            last = (
                f"ERROR, {self._problem}. Reply with exactly one JSON object for one action, "
                "as described in the instructions."
            )
        elif outcomes:
            last = "; ".join(("ok, " if o.ok else "FAILED, ") + o.message for o in outcomes)
        else:
            last = "none yet." if self._turns == 1 else "no action was performed."
        return f"Turn {self._turns}. Result of your last action: {last}\nURL: {screen.url}"

    def _observation(
        self, outcomes: list[ActionOutcome], screen: Screen
    ) -> list[ChatCompletionContentPartParam]:
        text = self._header(outcomes, screen)
        if screen.accessibility is not None:
            text += f"\n{screen.accessibility}"
        if screen.marks:
            text += f"\nMarked elements:\n{render_marks(screen.marks)}"
        parts: list[ChatCompletionContentPartParam] = [{"type": "text", "text": text}]
        if screen.png is not None:
            url = "data:image/png;base64," + base64.b64encode(screen.png).decode()
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif screen.accessibility is None:
            parts.append({"type": "text", "text": "(the screen could not be captured this turn)"})
        return parts

    def _forget_old_screens(self) -> None:
        """Observations older than the newest `keep_screens` shrink to their header line."""
        while len(self._observed) > self.keep_screens:
            index = self._observed.pop(0)
            old = self._messages[index]
            content = old.get("content")
            first = content[0] if isinstance(content, list) and content else None
            header = str(first.get("text", "")) if isinstance(first, dict) else ""
            kept = "\n".join(header.splitlines()[:2])
            note = f"[screen omitted: only the latest {self.keep_screens} are kept]"
            self._messages[index] = {"role": "user", "content": f"{kept}\n{note}"}


def _images(messages: list[ChatCompletionMessageParam]) -> int:
    """Images a request carries: what vision pricing counts."""
    count = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            count += sum(
                isinstance(part, dict) and part.get("type") == "image_url" for part in content
            )
    return count

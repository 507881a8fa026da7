"""A browser agent over any OpenAI-compatible chat endpoint, one JSON action per turn.

Each turn the model sees the URL, the page's accessibility snapshot and the result of its last
action, and answers with exactly one action from the replay vocabulary. Replies are parsed
strictly: anything else costs a step and the error is shown back, as a person would be told.
Past snapshots are not resent; the history keeps each reply and its result, which bounds cost.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from openai import AsyncOpenAI, omit
from pydantic import ValidationError

from endstate.agents.actions import (
    ACTION_ADAPTER,
    MAX_WAIT_SECONDS,
    Action,
    Done,
    GiveUp,
    describe_validation_error,
)
from endstate.agents.base import (
    ActionRecord,
    AgentClaim,
    AgentOutcome,
    AttemptContext,
    InProcessAgent,
    TokenUsage,
)
from endstate.agents.computer import Usage
from endstate.agents.conversation import discard_conversation, write_conversation
from endstate.agents.model_calls import ModelCallFailed, RetryPolicy, call_with_retries
from endstate.agents.observe import DEFAULT_SNAPSHOT_CHARS, observe, render
from endstate.agents.perform import ActionResult, ActOptions, perform
from endstate.agents.replay import action_record, attempt_downloads, time_budget
from endstate.endpoints import Endpoint, check_endpoint
from endstate.manifest import EndpointCheck

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam
    from playwright.async_api import Page

PromptMode = Literal["task", "task+guidance"]
PROMPT_MODES: tuple[PromptMode, ...] = ("task", "task+guidance")
DUMMY_KEY = "endstate-local"  # local endpoints often need no key, but the client wants one

SYSTEM_PROMPT = f"""\
You operate a web browser to complete one healthcare operations task in the systems you are
given. Each turn you receive the current URL, the page's accessibility snapshot (a YAML-like
tree of roles and accessible names) and the result of your previous action.

Reply with exactly one action as a single JSON object and nothing else: no prose, no list, at
most one ```json fence around it. Address elements the way the snapshot names them:
  {{"role": "button", "name": "Save note"}}  by ARIA role and accessible name
  {{"label": "Service date"}}                 by the text of a field's label
  {{"text": "REF-2025-002"}}                  by visible text
Add "nth": 0, 1, ... (0-based) only when several visible elements match. Exact names are
preferred; a unique partial, case-insensitive match is also accepted. Never use CSS selectors.

Actions:
{{"type": "click", "target": {{"role": "link", "name": "Worklist"}}}}
{{"type": "fill", "target": {{"label": "Member ID"}}, "value": "ABC123"}}
{{"type": "select", "target": {{"label": "Visit type"}}, "option": "Follow-up"}}
  chooses an option by its visible label, in a native select or a custom listbox
{{"type": "press", "key": "Enter", "target": {{"label": "Search"}}}}   (target optional)
{{"type": "check", "target": {{"role": "checkbox", "name": "Urgent"}}}}
{{"type": "uncheck", "target": {{"role": "checkbox", "name": "Urgent"}}}}
{{"type": "download", "target": {{"role": "link", "name": "Download letter"}}}}
  saves the file and tells you its path
{{"type": "upload", "target": {{"label": "Attachment"}}, "path": "/path/from/a/download"}}
  only files you downloaded in this attempt can be uploaded
{{"type": "goto", "url": "/worklist"}}   (relative URLs resolve against the current page)
{{"type": "wait", "seconds": 2}}   (at most {MAX_WAIT_SECONDS:g})
{{"type": "done", "message": "what you did and any confirmation numbers"}}
{{"type": "give_up", "message": "why the task cannot be completed"}}

Act only through these actions. Use "done" when the task is complete, "give_up" when it
cannot be completed. Your final message is recorded but does not decide whether the task was
completed: only what the systems recorded does.
"""

GUIDANCE = """\
Portal guidance (general hints about these systems, not about this task):
- Dates are entered as MM/DD/YYYY.
- Dropdowns may be custom listboxes (a button that opens a list of options); use the select
  action with the option's visible label for native and custom dropdowns alike.
- Notes usually need a category chosen before they can be saved.
- Lists contain look-alike records and documents: match identifiers (names, dates of birth,
  member IDs, reference numbers) exactly before acting on a record.
- Forms check their input when submitted; read any error messages and correct the fields.
- Saving or submitting shows a confirmation; quote confirmation or reference numbers in your
  final message.
- Long pages may be truncated in the snapshot; open the relevant section or record directly.
"""

ANSWER_CONTRACT = (
    'Answer in the "done" message with one JSON object (JSON, not YAML) holding these keys; '
    'only they are graded. Use [] for an empty list and "none" when there is nothing to report:'
)

PROMPT_VERSION = hashlib.sha256((SYSTEM_PROMPT + GUIDANCE + ANSWER_CONTRACT).encode()).hexdigest()[
    :16
]
REPLY_PREVIEW = 500

_FENCE = re.compile(r"\A```(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n?```\Z", re.DOTALL)


def _limit(exc: Exception) -> str:
    """Which of the decoder's limits a reply passed: an integer of thousands of digits, or
    nesting past the interpreter's depth."""
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    return str(exc).split(";")[0][:120]


def reply_object(reply: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """The one JSON object a reply holds (at most one ```json fence around it), or why not."""
    text = (reply or "").strip()
    if not text:
        return None, "the reply was empty"
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group("body").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"the reply is not a single JSON object ({exc.msg} at char {exc.pos})"
    except (ValueError, RecursionError) as exc:  # Python's own limits: the model's, not ours
        return None, f"the reply is not a usable JSON object ({_limit(exc)})"
    if not isinstance(data, dict):
        return None, f"the reply is JSON but not an object (got {type(data).__name__})"
    return data, None


def parse_reply(reply: str | None) -> tuple[Action | None, str | None]:
    """One action from a model reply, or the reason it is not one (to show to the model)."""
    data, problem = reply_object(reply)
    if data is None:
        return None, problem
    try:
        return ACTION_ADAPTER.validate_python(data), None
    except ValidationError as exc:
        return None, f"the action is invalid: {describe_validation_error(exc)}"


def task_message(ctx: AttemptContext, prompt_mode: PromptMode) -> str:
    """The opening user message: the projection (and generic guidance), nothing else."""
    projection = ctx.projection
    lines = [f"Task:\n{projection.instruction}", "", f"Task family: {projection.family}"]
    if projection.scenario_label:
        lines.append(f"Scenario: {projection.scenario_label}")
    if projection.start_url:
        lines.append(f"Start URL: {projection.start_url}")
    if ctx.start_urls:
        lines.append("Systems:")
        lines.extend(f"- {system}: {url}" for system, url in sorted(ctx.start_urls.items()))
    if projection.answer_fields:
        lines += ["", ANSWER_CONTRACT]
        lines.extend(
            f"- {f.name}: {f.description}" if f.description else f"- {f.name}"
            for f in projection.answer_fields
        )
    if prompt_mode == "task+guidance":
        lines += ["", GUIDANCE.rstrip()]
    return "\n".join(lines)


@dataclass
class _Progress:
    """What an attempt has done so far, so any way of ending still reports it."""

    start: float = field(default_factory=time.monotonic)
    tokens: TokenUsage = field(default_factory=TokenUsage)
    usage: Usage = field(default_factory=Usage)
    usage_reported: bool = False
    actions: list[ActionRecord] = field(default_factory=list)
    # What the model was shown and answered, each observation whole (the trace's copy).
    conversation: list[dict[str, str]] = field(default_factory=list)

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def outcome(self, claim: AgentClaim, **extra: Any) -> AgentOutcome:
        return AgentOutcome(
            claim=claim,
            steps=len(self.actions),
            tokens=self.tokens.model_copy() if self.usage_reported else None,
            usage=replace(self.usage),
            actions=list(self.actions),
            **extra,
        )


class LLMAgent(InProcessAgent):
    """`llm:MODEL`: scored; its tokens and steps are recorded with every attempt."""

    kind = "llm"
    scored = True
    uses_page = True

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        api_key_env: str = "ENDSTATE_AGENT_API_KEY",
        prompt_mode: PromptMode = "task",
        max_steps: int | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        snapshot_chars: int = DEFAULT_SNAPSHOT_CHARS,
        request_timeout: float = 120.0,
        max_retries: int = 2,
        options: ActOptions | None = None,
        name: str | None = None,
    ) -> None:
        if prompt_mode not in PROMPT_MODES:
            raise ValueError(f"prompt mode {prompt_mode!r}: expected one of {PROMPT_MODES}")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.prompt_mode: PromptMode = prompt_mode
        self.max_steps = max_steps
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.snapshot_chars = snapshot_chars
        self.request_timeout = request_timeout
        self.retry = RetryPolicy(attempts=max_retries + 1)  # counted, never the SDK's own
        self.options = options or ActOptions()
        self.name = name or f"llm:{model}"

    def config(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "prompt_mode": self.prompt_mode,
            "prompt_version": PROMPT_VERSION,
            "max_steps": self.max_steps,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "snapshot_chars": self.snapshot_chars,
            "action_timeout_ms": self.options.timeout_ms,
        }

    def _api_key(self) -> str:
        return openai_key(self.api_key_env) or DUMMY_KEY

    async def preflight(self) -> list[EndpointCheck]:
        return [await check_endpoint(chat_endpoint(self.model, self.base_url, self.api_key_env))]

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        progress = _Progress()
        discard_conversation(ctx.trace_dir)
        if page is None:
            return progress.outcome("error", error="the llm agent needs a browser page")
        try:
            return await self._attempt(ctx, page, progress)
        finally:
            if progress.conversation:
                write_conversation(ctx.trace_dir, progress.conversation)

    async def _attempt(self, ctx: AttemptContext, page: Page, progress: _Progress) -> AgentOutcome:
        try:
            with attempt_downloads(self.options, ctx) as downloads:
                options = self._attempt_options(downloads)
                async with AsyncOpenAI(
                    api_key=self._api_key(),
                    base_url=self.base_url,
                    timeout=self.request_timeout,
                    max_retries=0,  # retries are the harness's, counted (call_with_retries)
                ) as client:
                    return await self._loop(client, ctx, page, options, progress)
        except ModelCallFailed as exc:
            return progress.outcome("error", error=str(exc), model_failure=True)
        except TimeoutError:
            return progress.outcome("timeout", error=f"time limit {ctx.time_limit:g}s reached")
        except Exception as exc:  # an agent-level failure is an outcome, not a crash
            return progress.outcome("error", error=f"{type(exc).__name__}: {exc}")

    def _step_limit(self, ctx: AttemptContext) -> int:
        return min(self.max_steps, ctx.max_steps) if self.max_steps else ctx.max_steps

    async def _loop(
        self,
        client: AsyncOpenAI,
        ctx: AttemptContext,
        page: Page,
        options: ActOptions,
        progress: _Progress,
    ) -> AgentOutcome:
        limit = self._step_limit(ctx)
        budget = time_budget(ctx)
        opening = task_message(ctx, self.prompt_mode)
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": opening},
        ]
        progress.conversation += [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": opening},
        ]
        last = "none yet: the page is at the start URL."
        for step in range(1, limit + 1):
            remaining = budget - progress.elapsed()
            if remaining <= 0:
                raise TimeoutError
            seen = await asyncio.wait_for(observe(page, self.snapshot_chars), remaining)
            header = f"Step {step} of {limit}. Result of your last action: {last}"
            observation = f"{header}\n{render(seen)}"
            messages.append({"role": "user", "content": observation})
            reply = await asyncio.wait_for(
                self._complete(client, messages, progress), budget - progress.elapsed()
            )
            at = progress.elapsed()
            progress.conversation += [
                {"role": "user", "content": observation},
                {"role": "assistant", "content": reply or ""},
            ]
            # Past snapshots are not resent: keep only the header of this observation.
            messages[-1] = {"role": "user", "content": f"{header}\nURL: {seen.url}"}
            messages.append({"role": "assistant", "content": reply or ""})
            action, problem = parse_reply(reply)
            if action is None:
                assert problem is not None
                progress.actions.append(
                    ActionRecord(
                        step=step,
                        action={"invalid_reply": (reply or "")[:REPLY_PREVIEW]},
                        ok=False,
                        result=problem,
                        at=at,
                    )
                )
                last = (
                    f"ERROR, {problem}. Reply with exactly one JSON object for one action, "
                    "as described in the instructions."
                )
                continue
            if isinstance(action, Done | GiveUp):
                progress.actions.append(action_record(step, action, ActionResult(True, ""), at))
                claim: AgentClaim = "done" if isinstance(action, Done) else "gave_up"
                return progress.outcome(claim, final_message=action.message)
            result = await asyncio.wait_for(
                perform(page, action, options), budget - progress.elapsed()
            )
            progress.actions.append(action_record(step, action, result, at))
            last = ("ok, " if result.ok else "FAILED, ") + result.message
        return progress.outcome("step_limit", error=f"step limit {limit} reached")

    def _attempt_options(self, downloads: Path) -> ActOptions:
        """The model may upload only what it downloaded in this attempt, never other files."""
        roots = self.options.upload_roots
        return replace(
            self.options,
            download_dir=downloads,
            files_dir=downloads,
            upload_roots=roots if roots is not None else (downloads,),
        )

    async def _complete(
        self,
        client: AsyncOpenAI,
        messages: list[ChatCompletionMessageParam],
        progress: _Progress,
    ) -> str | None:
        response = await call_with_retries(
            lambda: client.chat.completions.create(
                model=self.model,
                messages=messages,
                temperature=self.temperature if self.temperature is not None else omit,
                max_tokens=self.max_tokens if self.max_tokens is not None else omit,
            ),
            progress.usage,
            self.retry,
        )
        if response.usage is not None:
            progress.usage_reported = True
            progress.tokens.prompt += response.usage.prompt_tokens
            progress.tokens.completion += response.usage.completion_tokens
            progress.usage.input_tokens += response.usage.prompt_tokens
            progress.usage.output_tokens += response.usage.completion_tokens
        if not response.choices:
            return None
        return response.choices[0].message.content


def openai_key(env: str) -> str | None:
    """The key an OpenAI-compatible agent sends: its own variable, else $OPENAI_API_KEY."""
    return os.environ.get(env) or os.environ.get("OPENAI_API_KEY")


def chat_endpoint(model: str, base_url: str | None, key_env: str) -> Endpoint:
    """The chat endpoint an OpenAI-compatible agent calls, for its check before the run."""
    key = openai_key(key_env)
    return Endpoint(
        role="agent model",
        api="openai-chat",
        model=model,
        base_url=base_url,
        api_key=key or DUMMY_KEY,
        key_set=key is not None,
        key_hint=f"${key_env} or $OPENAI_API_KEY",
        option="--agent-base-url",
    )

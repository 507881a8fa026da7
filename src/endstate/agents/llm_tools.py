"""A tool-using agent over any OpenAI-compatible chat endpoint: the system's tools (the
scheduling service's) handed to the model as function tools, each call made over HTTP
against the attempt's own episode, each result given back. The model ends by calling
`finish`; a reply with no tool call is taken as its final message.

Its record of each step keeps the tool's name and the service's status or refusal code,
never the arguments: the service's own trace holds them, minimised.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import TYPE_CHECKING, Any

from openai import AsyncOpenAI, omit

from endstate.agents.base import (
    ActionRecord,
    AgentClaim,
    AgentOutcome,
    AttemptContext,
    InProcessAgent,
    TokenUsage,
)
from endstate.agents.computer import Usage
from endstate.agents.llm import DUMMY_KEY, chat_endpoint, openai_key
from endstate.agents.model_calls import ModelCallFailed, RetryPolicy, call_with_retries
from endstate.agents.replay import time_budget
from endstate.agents.tool_client import ToolClient
from endstate.endpoints import check_endpoint
from endstate.manifest import EndpointCheck

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam
    from playwright.async_api import Page

TOOLS_PROMPT = """\
You are a scheduling assistant for a medical practice. You act only through the tools you are
given, on behalf of the patient or coordinator described in the task, who answers through
the request_approval and message_user tools. Change nothing they have not approved. Writes
take an idempotency_key you choose: reuse it when you retry the same request, so it cannot
happen twice. When a result says its outcome is unknown, find out what happened before you
act again. When you are finished, call finish with a short account of what you did; your
account is recorded but does not decide whether the task was completed: only what the
systems recorded does.
"""
FINISH: ChatCompletionToolParam = {
    "type": "function",
    "function": {
        "name": "finish",
        "description": "End the task: what you did, or why it cannot be done. Where the task "
        "asks for an answer, give it here as one JSON object with the keys it names.",
        "parameters": {
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "outcome": {"type": "string", "enum": ["done", "gave_up"]},
            },
            "required": ["message"],
            "additionalProperties": False,
        },
    },
}
PROMPT_VERSION = hashlib.sha256(TOOLS_PROMPT.encode()).hexdigest()[:16]


def task_text(ctx: AttemptContext) -> str:
    """The opening message: the projection only."""
    p = ctx.projection
    lines = [f"Task:\n{p.instruction}", "", f"Task family: {p.family}"]
    if p.scenario_label:
        lines.append(f"Scenario: {p.scenario_label}")
    if p.answer_fields:
        lines += ["", "Give your answer in finish's message as one JSON object with these keys:"]
        lines += [
            f"- {f.name}: {f.description}" if f.description else f"- {f.name}"
            for f in p.answer_fields
        ]
    return "\n".join(lines)


class LLMToolsAgent(InProcessAgent):
    """`llm-tools:MODEL`: scored; tokens and steps recorded with every attempt."""

    kind = "llm-tools"
    scored = True
    uses_page = False

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        system: str = "scheduling",
        api_key_env: str = "ENDSTATE_AGENT_API_KEY",
        max_steps: int | None = None,
        temperature: float | None = 0.0,
        request_timeout: float = 120.0,
        max_retries: int = 2,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.system = system
        self.api_key_env = api_key_env
        self.max_steps = max_steps
        self.temperature = temperature
        self.request_timeout = request_timeout
        self.retry = RetryPolicy(attempts=max_retries + 1)  # counted, never the SDK's own
        self.name = f"llm-tools:{model}"

    def config(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "model": self.model,
            "base_url": self.base_url,
            "system": self.system,
            "api_key_env": self.api_key_env,
            "prompt_version": PROMPT_VERSION,
            "max_steps": self.max_steps,
            "temperature": self.temperature,
        }

    async def preflight(self) -> list[EndpointCheck]:
        return [await check_endpoint(chat_endpoint(self.model, self.base_url, self.api_key_env))]

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        start = ctx.start_urls.get(self.system)
        if start is None:
            return AgentOutcome(claim="error", error=f"the episode has no {self.system!r} system")
        steps: list[ActionRecord] = []
        tokens = TokenUsage()
        usage = Usage()
        try:
            async with (
                AsyncOpenAI(
                    api_key=openai_key(self.api_key_env) or DUMMY_KEY,
                    base_url=self.base_url,
                    timeout=self.request_timeout,
                    max_retries=0,  # retries are the harness's, counted (call_with_retries)
                ) as llm,
                ToolClient(start) as tools,
            ):
                ended = await asyncio.wait_for(
                    self._loop(llm, tools, ctx, steps, tokens, usage), time_budget(ctx)
                )
                return ended.model_copy(update={"usage": usage})
        except ModelCallFailed as exc:
            claim: AgentClaim = "error"
            error, failed = str(exc), True
        except TimeoutError:
            claim, error, failed = "timeout", f"time limit {ctx.time_limit:g}s reached", False
        except Exception as exc:  # an agent-level failure is an outcome, not a crash
            claim, error, failed = "error", f"{type(exc).__name__}: {exc}", False
        return AgentOutcome(
            claim=claim,
            error=error,
            steps=len(steps),
            actions=steps,
            tokens=tokens,
            usage=usage,
            model_failure=failed,
        )

    async def _loop(
        self,
        llm: AsyncOpenAI,
        tools: ToolClient,
        ctx: AttemptContext,
        steps: list[ActionRecord],
        tokens: TokenUsage,
        usage: Usage,
    ) -> AgentOutcome:
        offered = [_as_function(t) for t in await tools.tools()]
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": TOOLS_PROMPT},
            {"role": "user", "content": task_text(ctx)},
        ]
        limit = min(self.max_steps, ctx.max_steps) if self.max_steps else ctx.max_steps
        began = asyncio.get_running_loop().time()
        while len(steps) < limit:
            response = await call_with_retries(
                lambda: llm.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    tools=[*offered, FINISH],
                    temperature=self.temperature if self.temperature is not None else omit,
                ),
                usage,
                self.retry,
            )
            if response.usage is not None:
                tokens.prompt += response.usage.prompt_tokens
                tokens.completion += response.usage.completion_tokens
                usage.input_tokens += response.usage.prompt_tokens
                usage.output_tokens += response.usage.completion_tokens
            message = response.choices[0].message if response.choices else None
            calls = (message.tool_calls or []) if message else []
            if message is None or not calls:
                text = message.content if message else None
                error = None if text else "the model ended without a reply"
                return _ended("done" if text else "error", steps, tokens, text, error)
            messages.append(message.model_dump(exclude_none=True))  # type: ignore[arg-type]
            for call in calls:
                at = round(asyncio.get_running_loop().time() - began, 3)
                name = call.function.name  # type: ignore[union-attr]
                arguments, answer = call_arguments(call.function.arguments)  # type: ignore[union-attr]
                if arguments is not None and name == "finish":
                    steps.append(
                        ActionRecord(step=len(steps) + 1, action={"type": "finish"}, ok=True, at=at)
                    )
                    claim: AgentClaim = (
                        "gave_up" if arguments.get("outcome") == "gave_up" else "done"
                    )
                    return _ended(claim, steps, tokens, str(arguments.get("message", "")))
                if arguments is not None:
                    key = arguments.pop("idempotency_key", None)
                    answer = await tools.call(
                        name, arguments, key if isinstance(key, str) else None
                    )
                steps.append(
                    ActionRecord(
                        step=len(steps) + 1,
                        action={"type": "tool", "tool": name},
                        ok=answer.get("status") != "refused",
                        result=str(answer.get("code") or answer.get("status")),
                        at=at,
                    )
                )
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": json.dumps(answer)}
                )
        return _ended("step_limit", steps, tokens, error=f"step limit {limit} reached")


def _as_function(tool: dict[str, Any]) -> ChatCompletionToolParam:
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool["description"],
            "parameters": tool["parameters"],
        },
    }


def call_arguments(raw: str | None) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The call's arguments, or None and the refusal the model is shown."""
    try:
        found = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        found = exc.msg
    except RecursionError:
        found = "nested too deeply to read"
    except ValueError as exc:  # Python's own limits, e.g. an integer of over 4,300 digits
        found = str(exc).split(";")[0][:120]
    if isinstance(found, dict):
        return found, {}
    why = found if isinstance(found, str) else "not an object"
    return None, {
        "status": "refused",
        "code": "bad_arguments",
        "message": f"arguments are not a JSON object ({why})",
    }


def _ended(
    claim: AgentClaim,
    steps: list[ActionRecord],
    tokens: TokenUsage,
    message: str | None = None,
    error: str | None = None,
) -> AgentOutcome:
    return AgentOutcome(
        claim=claim,
        final_message=message,
        error=error,
        steps=len(steps),
        actions=steps,
        tokens=tokens,
    )

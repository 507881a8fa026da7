"""Retries of model calls, against a real HTTP server and the real openai client."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from openai import AsyncOpenAI

from endstate.agents.computer import Usage
from endstate.agents.model_calls import ModelCallFailed, RetryPolicy, call_with_retries
from openai_double import Behaviour, ChatDouble


@pytest.fixture
def double() -> Iterator[ChatDouble]:
    server = ChatDouble().start()
    yield server
    server.stop()


FAST = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)


def _ask(chat: ChatDouble, usage: Usage, policy: RetryPolicy = FAST) -> str | None:
    async def go() -> str | None:
        async with AsyncOpenAI(api_key="k", base_url=chat.base_url, max_retries=0) as client:
            reply = await call_with_retries(
                lambda: client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "hi"}]
                ),
                usage,
                policy,
            )
        return reply.choices[0].message.content

    return asyncio.run(go())


def test_rate_limits_and_overload_are_retried_and_counted(double: ChatDouble) -> None:
    double.queue(Behaviour(status=429), Behaviour(status=503), Behaviour(reply="fine"))
    usage = Usage()
    assert _ask(double, usage) == "fine"
    assert (usage.calls, usage.retries, usage.failed_calls) == (3, 2, 0)
    assert len(double.requests) == 3


def test_a_call_that_keeps_failing_ends_as_model_call_failed(double: ChatDouble) -> None:
    double.queue(*[Behaviour(status=529)] * 3)
    usage = Usage()
    with pytest.raises(ModelCallFailed, match=r"after 3 tries \(HTTP 529\)"):
        _ask(double, usage)
    assert (usage.calls, usage.retries, usage.failed_calls) == (3, 2, 1)


def test_a_client_error_is_not_retried(double: ChatDouble) -> None:
    double.queue(Behaviour(status=400), Behaviour(reply="never asked"))
    usage = Usage()
    with pytest.raises(ModelCallFailed, match=r"after 1 try \(HTTP 400\)"):
        _ask(double, usage)
    assert (usage.calls, usage.retries, len(double.requests)) == (1, 0, 1)

"""Retries of model calls, against a real HTTP server and the real openai client."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from openai import AsyncOpenAI

from endstate.agents.computer import Usage
from endstate.agents.model_calls import (
    ModelCallFailed,
    RetryPolicy,
    call_with_retries,
    reached_no_model,
)
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
    with pytest.raises(ModelCallFailed, match=r"after 3 tries \(HTTP 529\)") as failed:
        _ask(double, usage)
    assert (usage.calls, usage.retries, usage.failed_calls) == (3, 2, 1)
    assert f"from {double.base_url}/chat/completions" in str(failed.value)  # where it went
    assert usage.succeeded == 0 and reached_no_model(usage)


def test_a_client_error_is_not_retried(double: ChatDouble) -> None:
    double.queue(Behaviour(status=400), Behaviour(reply="never asked"))
    usage = Usage()
    with pytest.raises(ModelCallFailed, match=r"after 1 try \(HTTP 400\)"):
        _ask(double, usage)
    assert (usage.calls, usage.retries, len(double.requests)) == (1, 0, 1)


def _cut(chat: ChatDouble, usage: Usage, policy: RetryPolicy, after: float) -> None:
    """A call made under a time limit that ends before it does."""

    async def go() -> None:
        async with AsyncOpenAI(api_key="k", base_url=chat.base_url, max_retries=0) as client:
            async with asyncio.timeout(after):
                await call_with_retries(
                    lambda: client.chat.completions.create(
                        model="m", messages=[{"role": "user", "content": "hi"}]
                    ),
                    usage,
                    policy,
                )

    with pytest.raises(TimeoutError):
        asyncio.run(go())


def test_a_call_cut_by_the_time_limit_counts_as_failed(double: ChatDouble) -> None:
    double.queue(Behaviour(reply="too late", delay=3.0))
    usage = Usage()
    _cut(double, usage, FAST, after=0.5)
    assert (usage.calls, usage.retries, usage.failed_calls, usage.succeeded) == (1, 0, 1, 0)
    assert reached_no_model(usage)


def test_a_retry_the_time_limit_cut_while_waiting_counts_the_call_failed(
    double: ChatDouble,
) -> None:
    double.queue(Behaviour(status=503))
    usage = Usage()
    _cut(double, usage, RetryPolicy(attempts=3, base_delay=5.0, max_delay=5.0), after=0.5)
    assert (usage.calls, usage.retries, usage.failed_calls) == (1, 0, 1)  # never retried
    assert len(double.requests) == 1


def test_a_model_that_answered_once_was_reached(double: ChatDouble) -> None:
    double.queue(Behaviour(reply="fine"), *[Behaviour(status=500)] * 3)
    usage = Usage()
    assert _ask(double, usage) == "fine"
    with pytest.raises(ModelCallFailed):
        _ask(double, usage)
    assert (usage.calls, usage.retries, usage.failed_calls, usage.succeeded) == (4, 2, 1, 1)
    assert not reached_no_model(usage)
    assert not reached_no_model(Usage()) and not reached_no_model(None)  # no call, no loss

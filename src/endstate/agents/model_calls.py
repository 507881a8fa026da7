"""Model calls that survive rate limits and passing faults, and count what that cost.

Vendor SDKs retry quietly; the harness wants the retries on the record (a run that only passed
by retrying forty times is worth knowing about), so SDK clients are made with `max_retries=0`
and every call goes through `call_with_retries`, which backs off exponentially with jitter,
honours a server's `retry-after`, and counts. A call that still fails raises `ModelCallFailed`,
and one cut by the attempt's time limit (cancelled while waiting for an answer or a retry) is
counted failed too. An attempt ended that way after some call succeeded is the agent's
failure; one in which no call ever succeeded (`reached_no_model`) measured nothing of the
agent, and the runner records it as the model endpoint's (an infrastructure fault).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from endstate.agents.computer import Usage

T = TypeVar("T")
TRANSIENT_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 529})


class ModelCallFailed(Exception):
    """The model could not be reached or kept refusing, after every retry.

    `usage` is what the failing call was counted in, so the attempt's record still has it."""

    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5  # calls in all, the first included
    base_delay: float = 1.0
    max_delay: float = 30.0
    jitter: float = 0.25  # +/- this fraction of each delay


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an SDK error carries (openai and anthropic both name it status_code)."""
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def is_transient(exc: BaseException) -> bool:
    """Rate limits, overload, 5xx, timeouts and dropped connections are worth another try."""
    status = status_of(exc)
    if status is not None:
        return status in TRANSIENT_STATUS
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"APIConnectionError", "APITimeoutError", "TimeoutError", "OSError"})


def retry_after(exc: BaseException) -> float | None:
    """Seconds a server asked the client to wait, if its response said so."""
    response: Any = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    raw = headers.get("retry-after") if headers is not None else None
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


async def call_with_retries(
    call: Callable[[], Awaitable[T]], usage: Usage, policy: RetryPolicy | None = None
) -> T:
    """Make one model call; repeat it on transient errors. Counts calls and retries in usage."""
    policy = policy or RetryPolicy()
    for attempt in range(1, policy.attempts + 1):
        usage.calls += 1
        try:
            return await call()
        except asyncio.CancelledError:  # cut by the time limit: this call failed for good
            usage.failed_calls += 1
            raise
        except Exception as exc:
            if not is_transient(exc) or attempt == policy.attempts:
                usage.failed_calls += 1
                raise ModelCallFailed(_describe(exc, attempt), usage) from exc
            usage.retries += 1
            delay = min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1))
            delay *= 1 + random.uniform(-policy.jitter, policy.jitter)
            try:
                await asyncio.sleep(min(policy.max_delay, max(delay, retry_after(exc) or 0.0)))
            except asyncio.CancelledError:  # the retry it waited for will never be made
                usage.retries -= 1
                usage.failed_calls += 1
                raise
    raise AssertionError("unreachable")  # the loop returns or raises


def reached_no_model(usage: Usage | None) -> bool:
    """Model calls were made and every one failed: the attempt never heard from its model."""
    return usage is not None and usage.failed_calls > 0 and usage.succeeded == 0


def _describe(exc: BaseException, attempt: int) -> str:
    status = status_of(exc)
    what = f"HTTP {status}" if status is not None else type(exc).__name__
    first = str(exc).strip().splitlines()
    detail = f": {first[0][:300]}" if first else ""
    where = _url_of(exc)
    at = f" from {where}" if where else ""
    tries = f"tr{'y' if attempt == 1 else 'ies'}"
    return f"model call failed after {attempt} {tries} ({what}){at}{detail}"


def _url_of(exc: BaseException) -> str | None:
    """The URL the failed request went to (the SDKs' errors carry their request)."""
    request: Any = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    return str(url) if url is not None else None

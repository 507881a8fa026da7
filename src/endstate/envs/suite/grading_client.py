"""Calling the grading channel: idempotent calls retried with a short, bounded backoff.

A connection can drop with no response (a server restart, a keep-alive race, a proxy), and
a dropped state read would make an attempt unmeasurable, a dropped close would leak an
episode. So idempotent calls — state read, close, health, fingerprint, and an episode create
that carries an idempotency key — are tried again a few times. When every try fails, the
error names the call, how many tries were made and the last error, so a record says why.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence

from endstate.envs.suite.grading_http import GradingResponse, GradingTransportError

# Pauses between tries: four tries, about 1.3 s in all before giving up.
RETRY_DELAYS: tuple[float, ...] = (0.05, 0.25, 1.0)
# Statuses that say "not now" rather than "no": the channel is overloaded or restarting.
RETRY_STATUSES = frozenset({502, 503, 504})
IDEMPOTENCY_HEADER = "Idempotency-Key"


class GradingCallFailed(RuntimeError):
    """Every try of one grading-channel call failed; the message is the evidence."""

    def __init__(self, call: str, tries: int, last_error: str) -> None:
        super().__init__(
            f"grading channel {call} failed after {tries} tr{'y' if tries == 1 else 'ies'} "
            f"(last error: {last_error})"
        )
        self.call = call
        self.tries = tries
        self.last_error = last_error


def describe(exc: BaseException) -> str:
    """An exception as evidence: its type and message (when it has one)."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def error_text(response: GradingResponse) -> str:
    """A failed response as evidence: its status and the channel's own `error`, if any."""
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    reason = error if isinstance(error, str) else response.reason_phrase
    return f"HTTP {response.status_code}: {reason}"


def _retryable(response: GradingResponse) -> bool:
    return response.status_code in RETRY_STATUSES


def call_with_retries(
    call: str,
    send: Callable[[], GradingResponse],
    delays: Sequence[float] = RETRY_DELAYS,
) -> GradingResponse:
    """`send()` until it gets a response that is not a retryable status (sync clients).

    Any other response, error statuses included, is returned for the caller to judge;
    `GradingCallFailed` once `len(delays) + 1` tries all failed.
    """
    last = ""
    for tries, pause in enumerate((*delays, None), start=1):
        try:
            response = send()
        except GradingTransportError as exc:  # dropped, refused, reset, timed out
            last = describe(exc)
        else:
            if not _retryable(response):
                return response
            last = error_text(response)
        if pause is None:
            raise GradingCallFailed(call, tries, last)
        time.sleep(pause)
    raise AssertionError("unreachable")  # pragma: no cover


async def acall_with_retries(
    call: str,
    send: Callable[[], Awaitable[GradingResponse]],
    delays: Sequence[float] = RETRY_DELAYS,
) -> GradingResponse:
    """`call_with_retries` for async clients: the pauses never block the event loop."""
    last = ""
    for tries, pause in enumerate((*delays, None), start=1):
        try:
            response = await send()
        except GradingTransportError as exc:
            last = describe(exc)
        else:
            if not _retryable(response):
                return response
            last = error_text(response)
        if pause is None:
            raise GradingCallFailed(call, tries, last)
        await asyncio.sleep(pause)
    raise AssertionError("unreachable")  # pragma: no cover

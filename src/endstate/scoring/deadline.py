"""A wall-clock deadline around a whole HTTP exchange: connect, headers and every body byte.

The openai SDK's HTTP client (httpx2) bounds each wait, not the exchange: a server that
trickles its body one byte a second never trips a 60 s read timeout. This transport gives each
request an absolute deadline (set per call by the judge) and cuts the response once it passes.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator

import httpx2

# The monotonic time by which the exchange in progress must be complete; None: no deadline.
DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("deadline", default=None)


class DeadlineExceeded(httpx2.TimeoutException):
    """The exchange ran past its wall-clock deadline."""


def _remaining() -> float | None:
    deadline = DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


class _DeadlineStream(httpx2.SyncByteStream):
    def __init__(self, inner: httpx2.SyncByteStream, request: httpx2.Request) -> None:
        self.inner = inner
        self.request = request

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            left = _remaining()
            if left is not None and left <= 0:
                raise DeadlineExceeded("response body past its deadline", request=self.request)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class DeadlineTransport(httpx2.HTTPTransport):
    """An HTTP transport that refuses to run past the deadline in `DEADLINE`."""

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        left = _remaining()
        if left is not None:
            if left <= 0:
                raise DeadlineExceeded("no time left for the request", request=request)
            # No single wait may outlast what is left of the whole exchange.
            per_wait = min(left, 3600.0)
            request.extensions["timeout"] = {
                "connect": per_wait,
                "read": per_wait,
                "write": per_wait,
                "pool": per_wait,
            }
        response = super().handle_request(request)
        assert isinstance(response.stream, httpx2.SyncByteStream)
        response.stream = _DeadlineStream(response.stream, request)
        return response

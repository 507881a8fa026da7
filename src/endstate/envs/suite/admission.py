"""Admission to the suite's systems: bounded bodies, and a fair share of the server per client.

Every system is served from one event loop, so without this one attempt's agent could stall
all the others: a 200 MiB body parsed in the loop, or a flood of page requests each rendered
and recorded. Here, before a request reaches its system, it is charged to its client (the
episode its session is bound to; a client bound to none, by its address) and

- refused 413 when its body is over the system's bound, from the Content-Length header or as
  soon as the stream passes it (nothing beyond the bound is read, so nothing is spooled);
- made to wait its turn when its client is over the request rate, the body-byte rate or the
  requests in service at once, so a flood only slows the flooder;
- refused 429 when its client already has too many requests waiting, or the wait would be
  too long.

What was delayed or refused is counted per episode, for the state document's summary.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from endstate.envs.suite.cookies import cookie_name
from endstate.envs.suite.database import EpisodeClosed
from endstate.envs.suite.descriptors import DescriptorsExhausted
from endstate.envs.suite.limits import SuiteLimits
from endstate.envs.suite.runtime import Episode, Runtime

ADDRESSES_KEPT = 1024  # shares of clients bound to no episode, most recent first


class TokenBucket:
    """`rate` a second up to `burst`; taking more than there is books a wait, never a refusal,
    so requests are served in the order they asked."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = time.monotonic()

    def reserve(self, amount: float) -> float:
        """Take `amount` now (into debt if need be): the seconds until it would have been due."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        self.tokens -= amount
        return max(0.0, -self.tokens / self.rate)

    def refund(self, amount: float) -> None:
        self.tokens = min(self.burst, self.tokens + amount)


@dataclass
class Usage:
    """What admission did to one client's requests."""

    requests_delayed: int = 0
    requests_refused: int = 0  # 429: too many waiting, or too long a wait
    bodies_refused: int = 0  # 413

    def as_dict(self) -> dict[str, int]:
        return {
            "requests_delayed": self.requests_delayed,
            "requests_refused": self.requests_refused,
            "bodies_refused": self.bodies_refused,
        }


@dataclass
class ClientShare:
    """One client's share of the server: its buckets, its slots, its queue."""

    requests: TokenBucket
    body_bytes: TokenBucket
    slots: asyncio.Semaphore
    waiting: int = 0
    usage: Usage = field(default_factory=Usage)

    @classmethod
    def of(cls, limits: SuiteLimits) -> ClientShare:
        return cls(
            TokenBucket(limits.requests_per_second, limits.request_burst),
            # The burst is at least one whole body, so a legal upload never waits on itself.
            TokenBucket(
                limits.body_bytes_per_second,
                max(limits.body_bytes_per_second, limits.upload_request_bytes),
            ),
            asyncio.Semaphore(limits.concurrent_requests),
        )


class Admission:
    """The shares of every client of one running suite (one event loop)."""

    def __init__(self, runtime: Runtime, limits: SuiteLimits) -> None:
        self.runtime = runtime
        self.limits = limits
        self._episodes: dict[str, ClientShare] = {}
        self._addresses: OrderedDict[str, ClientShare] = OrderedDict()

    def usage(self, episode_id: str) -> Usage:
        share = self._episodes.get(episode_id)
        return share.usage if share is not None else Usage()

    def client(self, system: str, scope: Scope) -> tuple[ClientShare, Episode | None]:
        """The share a request is charged to, and the episode its session is bound to."""
        conn = HTTPConnection(scope)
        sid = conn.cookies.get(cookie_name(system))
        if sid is None:  # clients that keep no cookies bind with a bearer header
            scheme, _, value = conn.headers.get("authorization", "").partition(" ")
            sid = value if scheme.lower() == "bearer" and value else None
        session = self.runtime.session(system, sid) if sid else None
        bound = session.episode_id if session is not None else None
        if bound is None and scope.get("path") == "/start":  # binding itself: its episode's
            bound = self.runtime.episode_of_start(system, conn.query_params.get("t", ""))
        if bound is not None:
            episode = self.runtime.episodes[bound]
            share = self._episodes.get(episode.id)
            if share is None:
                self._forget_closed()
                share = self._episodes[episode.id] = ClientShare.of(self.limits)
            return share, episode
        address = conn.client.host if conn.client is not None else ""
        share = self._addresses.pop(address, None) or ClientShare.of(self.limits)
        self._addresses[address] = share
        while len(self._addresses) > ADDRESSES_KEPT:
            self._addresses.popitem(last=False)
        return share, None

    def _forget_closed(self) -> None:
        if len(self._episodes) > 2 * len(self.runtime.episodes) + 16:
            for eid in [e for e in self._episodes if e not in self.runtime.episodes]:
                del self._episodes[eid]


class Admitted:
    """ASGI middleware in front of one system's app (the suite wraps every system in one)."""

    def __init__(self, app: ASGIApp, admission: Admission, system: str, body_limit: int) -> None:
        self.app = app
        self.admission = admission
        self.system = system
        self.body_limit = body_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limits = self.admission.limits
        share, episode = self.admission.client(self.system, scope)
        declared = _content_length(scope)
        if declared is not None and declared > self.body_limit:
            share.usage.bodies_refused += 1
            self._record(episode, scope, declared)
            await _answer(send, 413, f"The request body is over {self.body_limit} bytes.")
            return
        if share.waiting >= limits.queued_requests:
            share.usage.requests_refused += 1
            await _answer(send, 429, "Too many requests are waiting.", retry_after=1)
            return
        wait = share.requests.reserve(1)
        if wait > limits.max_wait_seconds:
            share.requests.refund(1)
            share.usage.requests_refused += 1
            await _answer(send, 429, "Too many requests.", retry_after=int(wait) + 1)
            return
        share.waiting += 1
        try:
            if wait > 0:
                share.usage.requests_delayed += 1
                await asyncio.sleep(wait)
            await share.slots.acquire()
        finally:
            share.waiting -= 1
        try:
            body = _BoundedBody(self, scope, receive, send, share, episode)
            await self.app(scope, body.receive, body.send)
        finally:
            share.slots.release()

    def _record(self, episode: Episode | None, scope: Scope, size: int) -> None:
        """The refused body, as an event of the episode (the evidence of what was tried)."""
        if episode is None:
            return
        db = episode.db
        with (
            contextlib.suppress(EpisodeClosed, DescriptorsExhausted, sqlite3.Error),
            db.lease(),
        ):
            db.event(
                system=self.system,
                page=scope.get("path", ""),
                kind="request.too_large",
                detail={"bytes": size, "limit": self.body_limit},
                accepted=False,
            )


class _BoundedBody:
    """The request's body stream, counted, throttled and cut at the bound."""

    def __init__(
        self,
        gate: Admitted,
        scope: Scope,
        receive: Receive,
        send: Send,
        share: ClientShare,
        episode: Episode | None,
    ) -> None:
        self.gate, self.scope, self._receive, self._send = gate, scope, receive, send
        self.share, self.episode = share, episode
        self.read = 0
        self.refused = False  # a 413 went out: the app's own answer is dropped
        self.started = False

    async def receive(self) -> Message:
        if self.refused:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] != "http.request":
            return message
        chunk = len(message.get("body", b""))
        self.read += chunk
        limit = self.gate.body_limit
        if self.read > limit:
            self.share.usage.bodies_refused += 1
            self.gate._record(self.episode, self.scope, self.read)
            if not self.started:
                self.refused = True
                await _answer(self._send, 413, f"The request body is over {limit} bytes.")
            return {"type": "http.disconnect"}
        wait = self.share.body_bytes.reserve(chunk) if chunk else 0.0
        if wait > 0:
            self.share.usage.requests_delayed += 1
            await asyncio.sleep(min(wait, self.gate.admission.limits.max_wait_seconds))
        return message

    async def send(self, message: Message) -> None:
        if self.refused:
            return
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the HTTP parser refuses such a request before it gets here
    return None


async def _answer(send: Send, status: int, message: str, retry_after: int | None = None) -> None:
    """A short plain answer that closes the connection (its unread body goes with it)."""
    body = f"{message}\n".encode()
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def limits_summary(admission: Admission | None, episode: Episode) -> dict[str, Any]:
    """The state document's `summary.limits`: what the bounds did to this episode."""
    usage = admission.usage(episode.id) if admission is not None else Usage()
    return {
        **usage.as_dict(),
        "events_dropped": episode.db.events_dropped,
        "storage_full": episode.db.storage_full,
    }

"""Model endpoints checked before a run's first attempt.

A base URL with a typo, a server that is down or a key that is missing would otherwise make
every attempt fail its model calls and score zero: a published zero that measured nothing. So
each endpoint a run depends on (the agent's model, the judge) gets one cheap request first,
made with the vendor's own SDK so the URL and headers are exactly those the attempts will use:
its model list (`GET /models`). A server without a usable list (404, 405, 501, 5xx, ...) is
asked one minimal call of the API the run speaks instead (a one-token chat completion, a
minimal response, a one-token message).

Refused, in one line naming the URL and what failed: nothing listening, a host name that does
not resolve, TLS failure, no answer within `PREFLIGHT_TIMEOUT`, 401/403 (the key is missing or
refused), and a minimal call answered 404 (no such API or model there) or 5xx. Accepted: a
model list, or an answer to the minimal call that shows a server taking requests with that key
(2xx, 400, 413, 422, 429: the request itself was judged, so the URL and key are right). A
model the list does not name is recorded, not refused: servers list aliases differently.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from endstate.errors import EndstateError
from endstate.manifest import EndpointCheck

EndpointApi = Literal["openai-chat", "openai-responses", "anthropic"]
PREFLIGHT_TIMEOUT = 15.0  # seconds per request (connect, headers and body); two at most
ACCEPTED = frozenset({400, 413, 422, 429})  # a minimal call judged on its content: a server
CALLS: dict[EndpointApi, str] = {
    "openai-chat": "POST /chat/completions",
    "openai-responses": "POST /responses",
    "anthropic": "POST /v1/messages",
}
LISTS: dict[EndpointApi, str] = {
    "openai-chat": "GET /models",
    "openai-responses": "GET /models",
    "anthropic": "GET /v1/models",
}


@dataclass(frozen=True)
class Endpoint:
    """One model endpoint a run depends on, as its client will call it."""

    role: str  # whose: "agent model" or "judge"
    api: EndpointApi
    model: str
    base_url: str | None  # None: the SDK's default (or its environment variable)
    api_key: str
    key_set: bool  # False: no key was found and a placeholder is sent
    key_hint: str  # where the key is read from, e.g. "$ENDSTATE_AGENT_API_KEY or $OPENAI_API_KEY"
    option: str  # what sets the URL, e.g. "--agent-base-url"


class _Answered(Exception):
    """The server answered with an HTTP error status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def check_endpoint(endpoint: Endpoint, timeout: float = PREFLIGHT_TIMEOUT) -> EndpointCheck:
    """The endpoint answers and takes the key, or EndstateError saying what failed, where."""
    client = _client(endpoint, timeout)
    url = str(client.base_url).rstrip("/")
    checked_at = datetime.now(UTC).isoformat(timespec="seconds")
    listing = LISTS[endpoint.api]
    try:
        try:
            page = await _ask(lambda: client.models.list(), endpoint, url, listing, timeout)
        except _Answered as answer:
            if answer.status in (401, 403):
                raise _refused(endpoint, url, listing, answer) from None
            tried = await _minimal(client, endpoint, url, answer, timeout)
            how = f"{listing}: HTTP {answer.status}; {tried}"
            return _check(endpoint, url, checked_at, how, None, timeout)
        ids = [str(getattr(m, "id", "")) for m in getattr(page, "data", None) or []]
        listed = endpoint.model in ids or f"models/{endpoint.model}" in ids
        how = f"{listing}: 200, {len(ids)} model(s) listed"
        return _check(endpoint, url, checked_at, how, listed, timeout)
    finally:
        await client.close()


async def _minimal(
    client: Any, endpoint: Endpoint, url: str, listed: _Answered, timeout: float
) -> str:
    """One minimal call of the API the run speaks, for a server without a model list."""
    call = CALLS[endpoint.api]
    try:
        await _ask(lambda: _minimal_call(client, endpoint), endpoint, url, call, timeout)
    except _Answered as answer:
        if answer.status not in ACCEPTED:
            raise _refused(endpoint, url, call, answer, listed) from None
        return f"{call}: HTTP {answer.status} (the server judged the request: reachable)"
    return f"{call}: 200"


def _minimal_call(client: Any, endpoint: Endpoint) -> Awaitable[Any]:
    ping = [{"role": "user", "content": "ping"}]
    if endpoint.api == "anthropic":
        return client.messages.create(model=endpoint.model, max_tokens=1, messages=ping)  # type: ignore[no-any-return]
    if endpoint.api == "openai-responses":
        return client.responses.create(model=endpoint.model, input="ping", max_output_tokens=16)  # type: ignore[no-any-return]
    return client.chat.completions.create(model=endpoint.model, messages=ping, max_tokens=1)  # type: ignore[no-any-return]


async def _ask(
    call: Callable[[], Awaitable[Any]], endpoint: Endpoint, url: str, what: str, timeout: float
) -> Any:
    """The call's result; `_Answered` for an HTTP error; a refusal if nothing answered."""
    try:
        return await call()
    except Exception as exc:
        status = getattr(exc, "status_code", None)
        if isinstance(status, int):
            raise _Answered(status, _first_line(getattr(exc, "message", None) or exc)) from exc
        raise EndstateError(
            f"{endpoint.role} endpoint {url}: {_transport_reason(exc, timeout)} ({what}); "
            f"check {endpoint.option}; no attempt was run"
        ) from None


def _refused(
    endpoint: Endpoint, url: str, what: str, answer: _Answered, listed: _Answered | None = None
) -> EndstateError:
    before = f" (after {LISTS[endpoint.api]}: HTTP {listed.status})" if listed else ""
    status = answer.status
    if status in (401, 403):
        word = "unauthorized" if status == 401 else "forbidden"
        key = (
            f"no key is set ({endpoint.key_hint})"
            if not endpoint.key_set
            else f"the key from {endpoint.key_hint} was refused"
        )
        why = f"HTTP {status} {word} on {what}{before}: {key}"
    elif status == 404:
        why = (
            f"HTTP 404 on {what}{before}: no such API or model {endpoint.model!r} at this URL; "
            f"check {endpoint.option} and the model name"
        )
    else:
        why = f"HTTP {status} on {what}{before}: the server cannot take requests now"
    detail = f" ({answer.message[:200]})" if answer.message else ""
    return EndstateError(f"{endpoint.role} endpoint {url}: {why}{detail}; no attempt was run")


def _transport_reason(exc: BaseException, timeout: float) -> str:
    """What stopped the request before any HTTP answer, in words a user can act on."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    for error in chain:
        if isinstance(error, ConnectionRefusedError):
            return "connection refused (nothing listening there)"
        if isinstance(error, socket.gaierror):
            return "the host name does not resolve"
        if isinstance(error, ssl.SSLError):
            return f"TLS failed ({_first_line(error)})"
    names = {cls.__name__ for error in chain for cls in type(error).__mro__}
    if names & {"APITimeoutError", "TimeoutException", "TimeoutError"}:
        return f"no answer within {timeout:g}s"
    deepest = chain[-1]
    text = _first_line(deepest)
    if "refused" in text.lower():
        return "connection refused (nothing listening there)"
    return f"unreachable ({type(deepest).__name__}: {text[:200]})"


def _first_line(value: object) -> str:
    lines = str(value).strip().splitlines()
    return lines[0].strip() if lines else ""


def _client(endpoint: Endpoint, timeout: float) -> Any:
    if endpoint.api == "anthropic":
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(
            api_key=endpoint.api_key, base_url=endpoint.base_url, timeout=timeout, max_retries=0
        )
    from openai import AsyncOpenAI

    return AsyncOpenAI(
        api_key=endpoint.api_key, base_url=endpoint.base_url, timeout=timeout, max_retries=0
    )


def _check(
    endpoint: Endpoint, url: str, checked_at: str, how: str, listed: bool | None, timeout: float
) -> EndpointCheck:
    return EndpointCheck(
        role=endpoint.role,
        api=endpoint.api,
        url=url,
        model=endpoint.model,
        checked_at=checked_at,
        how=how,
        model_listed=listed,
        timeout_s=timeout,
    )

"""The grading channel: the harness's own port, behind a bearer token.

Episodes are created and their state documents read here; none of these routes exist on the
ports the agent's browser talks to. An episode is refused (500, JSON `error` naming the file)
when the template database no longer matches the sha256 pinned at start; `/health` reports
the pin and whether the file still matches it.

Every answer is JSON, failures included. A create that carries an `Idempotency-Key` header
is safe to retry: the same key and body return the episode already made (200, not 201). A
close waits for requests still using the episode; a closed episode is answered 410. Out of
file descriptors, a create is refused 503 with the limit (`{"error", "limit"}`).
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from endstate.envs.suite.admission import Admission, limits_summary
from endstate.envs.suite.database import EpisodeClosed
from endstate.envs.suite.descriptors import DescriptorsExhausted
from endstate.envs.suite.grading_client import IDEMPOTENCY_HEADER
from endstate.envs.suite.registry import EpisodeSetupError, system_names
from endstate.envs.suite.runtime import Episode, IdempotencyConflict, Runtime
from endstate.envs.suite.statedoc import build_state
from endstate.envs.suite.world_db import TemplateTampered

Fingerprinter = Callable[[], Awaitable[dict[str, Any]]]
Handler = Callable[[Request], Awaitable[Response]]


def _error(message: str, status: int, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def _exhausted(exc: DescriptorsExhausted) -> JSONResponse:
    return _error(str(exc), 503, limit=exc.limit)


def _missing(runtime: Runtime, episode_id: str) -> JSONResponse:
    """404 for an id never seen, 410 for one closed (a retried close lands here)."""
    if runtime.was_closed(episode_id):
        return _error(f"episode {episode_id} is closed", 410)
    return _error("no such episode", 404)


def _create_body(
    body: Any,
) -> tuple[int | None, str | None, dict[str, Any] | None] | JSONResponse:
    """The seed, episode id and setup a create asks for, or the 400 saying what is wrong."""
    if not isinstance(body, dict):
        return _error("body must be a JSON object", 400)
    seed, episode_id = body.get("seed"), body.get("episode_id")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        return _error("seed must be a non-negative integer", 400)
    if episode_id is not None and not isinstance(episode_id, str):
        return _error("episode_id must be a string", 400)
    setup = body.get("setup")
    if setup is not None and not isinstance(setup, dict):
        return _error("setup must be a JSON object (system name -> its setup)", 400)
    return seed, episode_id, setup


class GradingChannel:
    """The harness-only API of a running suite: episodes, end states, fingerprint, health.

    Every answer is JSON, and every route is behind the bearer token."""

    def __init__(
        self,
        runtime: Runtime,
        token: str,
        fingerprint: Fingerprinter,
        admission: Admission | None = None,
    ) -> None:
        self.runtime = runtime
        self.admission = admission
        self.token = token
        self.fingerprinter = fingerprint

    def authorized(self, request: Request) -> bool:
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            value.encode(), self.token.encode()
        )

    def guarded(self, handler: Handler) -> Handler:
        async def run(request: Request) -> Response:
            if not self.authorized(request):
                return _error("missing or wrong bearer token", 401)
            return await handler(request)

        return run

    def created(self, episode: Episode, elapsed_ms: float, status: int) -> JSONResponse:
        runtime = self.runtime
        urls = {
            system: f"{runtime.base_urls[system]}/start?t={episode.start_tokens[system]}"
            for system in system_names()
        }
        return JSONResponse(
            {
                "episode_id": episode.id,
                "seed": episode.seed,
                "start_urls": urls,
                "world": {"id": runtime.world.id, "sha256": runtime.world.sha256},
                "clock": runtime.world.clock,
                "created_ms": round(elapsed_ms, 3),
            },
            status_code=status,
        )

    async def create(self, request: Request) -> Response:
        body: Any = {}
        if await request.body():
            try:
                body = await request.json()
            except ValueError:
                return _error("body is not JSON", 400)
        asked = _create_body(body)
        if isinstance(asked, JSONResponse):
            return asked
        seed, episode_id, setup = asked
        key = request.headers.get(IDEMPOTENCY_HEADER)
        started = time.perf_counter()
        try:
            if key is None:
                episode = await self.runtime.create_episode(seed, episode_id, setup)
                replayed = False
            else:
                episode, replayed = await self.runtime.create_once(key, seed, episode_id, setup)
        except TemplateTampered as exc:  # the environment is broken, not the request
            return _error(str(exc), 500)
        except DescriptorsExhausted as exc:
            return _exhausted(exc)
        except IdempotencyConflict as exc:
            return _error(str(exc), 422)
        except EpisodeSetupError as exc:
            return _error(str(exc), 400)
        except ValueError as exc:
            return _error(str(exc), 409)
        elapsed_ms = (time.perf_counter() - started) * 1000
        return self.created(episode, elapsed_ms, 200 if replayed else 201)

    async def state(self, request: Request) -> Response:
        eid = request.path_params["eid"]
        episode = self.runtime.episodes.get(eid)
        if episode is None:
            return _missing(self.runtime, eid)
        try:
            with episode.db.lease():
                document = build_state(self.runtime.world, episode)
            document["summary"]["limits"] = limits_summary(self.admission, episode)
            answer = JSONResponse(document)
            bound = self.runtime.limits.state_document_bytes
            if len(answer.body) > bound:  # the agent made it so: the attempt is unmeasurable
                return _error(
                    f"the state document is {len(answer.body)} bytes, over the limit of "
                    f"{bound} bytes",
                    507,
                    bytes=len(answer.body),
                    limit=bound,
                )
            return answer
        except EpisodeClosed:
            return _missing(self.runtime, eid)
        except DescriptorsExhausted as exc:
            return _exhausted(exc)

    async def close(self, request: Request) -> Response:
        eid = request.path_params["eid"]
        if eid not in self.runtime.episodes:
            return _missing(self.runtime, eid)
        await self.runtime.retire(eid)
        return Response(status_code=204)

    async def fingerprint(self, request: Request) -> Response:
        try:
            return JSONResponse(await self.fingerprinter())
        except TemplateTampered as exc:  # its probe episode could not be opened
            return _error(str(exc), 500)
        except DescriptorsExhausted as exc:
            return _exhausted(exc)

    async def health(self, request: Request) -> Response:
        runtime = self.runtime
        intact = runtime.template_intact()
        return JSONResponse(
            {
                "ok": intact,
                "world": {"id": runtime.world.id, "sha256": runtime.world.sha256},
                "template": {"sha256": runtime.template_sha256, "intact": intact},
                "episodes": len(runtime.episodes),
                "connections": {
                    "idle_open": runtime.connections.idle,
                    "idle_cap": runtime.connections.idle_cap,
                },
                "systems": runtime.base_urls,
            }
        )


async def _crashed(request: Request, exc: Exception) -> Response:
    # Whatever else goes wrong is still answered in JSON, with the failure's type.
    return _error(f"internal error: {type(exc).__name__}", 500)


def grading_app(
    runtime: Runtime,
    token: str,
    fingerprint: Fingerprinter,
    admission: Admission | None = None,
) -> Starlette:
    channel = GradingChannel(runtime, token, fingerprint, admission)
    guarded = channel.guarded
    return Starlette(
        routes=[
            Route("/episodes", guarded(channel.create), methods=["POST"]),
            Route("/episodes/{eid}/state", guarded(channel.state)),
            Route("/episodes/{eid}", guarded(channel.close), methods=["DELETE"]),
            Route("/fingerprint", guarded(channel.fingerprint)),
            Route("/health", guarded(channel.health)),
        ],
        exception_handlers={Exception: _crashed},
    )

"""The grading channel: the harness's own port, behind a bearer token.

Episodes are created and their state documents read here; none of these routes exist on the
ports the agent's browser talks to. An episode is refused (500, JSON `error` naming the file)
when the template database no longer matches the sha256 pinned at start; `/health` reports
the pin and whether the file still matches it.
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

from endstate.envs.runtime import SYSTEMS, Runtime
from endstate.envs.statedoc import build_state
from endstate.envs.store import TemplateTampered

Fingerprinter = Callable[[], Awaitable[dict[str, Any]]]


def grading_app(runtime: Runtime, token: str, fingerprint: Fingerprinter) -> Starlette:
    def authorized(request: Request) -> bool:
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(value.encode(), token.encode())

    def guard(
        handler: Callable[[Request], Awaitable[Response]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            if not authorized(request):
                return JSONResponse({"error": "missing or wrong bearer token"}, status_code=401)
            return await handler(request)

        return run

    @guard
    async def create(request: Request) -> Response:
        body: Any = {}
        if await request.body():
            try:
                body = await request.json()
            except ValueError:
                return JSONResponse({"error": "body is not JSON"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "body must be a JSON object"}, status_code=400)
        seed, episode_id = body.get("seed"), body.get("episode_id")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            return JSONResponse({"error": "seed must be a non-negative integer"}, status_code=400)
        if episode_id is not None and not isinstance(episode_id, str):
            return JSONResponse({"error": "episode_id must be a string"}, status_code=400)
        started = time.perf_counter()
        try:
            episode = runtime.open_episode(seed, episode_id)
        except TemplateTampered as exc:  # the environment is broken, not the request
            return JSONResponse({"error": str(exc)}, status_code=500)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)
        elapsed_ms = (time.perf_counter() - started) * 1000
        urls = {
            system: f"{runtime.base_urls[system]}/start?t={episode.start_tokens[system]}"
            for system in SYSTEMS
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
            status_code=201,
        )

    @guard
    async def state(request: Request) -> Response:
        episode = runtime.episodes.get(request.path_params["eid"])
        if episode is None:
            return JSONResponse({"error": "no such episode"}, status_code=404)
        return JSONResponse(build_state(runtime.world, episode))

    @guard
    async def close(request: Request) -> Response:
        eid = request.path_params["eid"]
        if eid not in runtime.episodes:
            return JSONResponse({"error": "no such episode"}, status_code=404)
        runtime.close_episode(eid)
        return Response(status_code=204)

    @guard
    async def fingerprint_route(request: Request) -> Response:
        try:
            return JSONResponse(await fingerprint())
        except TemplateTampered as exc:  # its probe episode could not be opened
            return JSONResponse({"error": str(exc)}, status_code=500)

    @guard
    async def health(request: Request) -> Response:
        intact = runtime.template_intact()
        return JSONResponse(
            {
                "ok": intact,
                "world": {"id": runtime.world.id, "sha256": runtime.world.sha256},
                "template": {"sha256": runtime.template_sha256, "intact": intact},
                "episodes": len(runtime.episodes),
                "systems": runtime.base_urls,
            }
        )

    return Starlette(
        routes=[
            Route("/episodes", create, methods=["POST"]),
            Route("/episodes/{eid}/state", state),
            Route("/episodes/{eid}", close, methods=["DELETE"]),
            Route("/fingerprint", fingerprint_route),
            Route("/health", health),
        ]
    )

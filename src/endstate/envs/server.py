"""The embedded suite in one process: each system on its own loopback port, plus grading.

All servers share one event loop in a background thread, so every database touch happens
on that thread, one request at a time; the Python API talks to the grading channel over
HTTP exactly as an out-of-process runner would.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import secrets
import shutil
import signal
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from endstate.envs.shared.web import STATIC, make_env, page_of, plain_page
from endstate.envs.suite.admission import Admission, Admitted
from endstate.envs.suite.cookies import cookie_name
from endstate.envs.suite.database import EpisodeClosed
from endstate.envs.suite.descriptors import DescriptorsExhausted
from endstate.envs.suite.fingerprint import fingerprint
from endstate.envs.suite.grading import grading_app
from endstate.envs.suite.grading_client import call_with_retries
from endstate.envs.suite.grading_http import GradingHTTP, GradingResponse
from endstate.envs.suite.limits import SuiteLimits
from endstate.envs.suite.registry import system_names, systems
from endstate.envs.suite.runtime import Runtime
from endstate.envs.suite.world_db import private_template
from endstate.envs.world import DEFAULT_CLOCK, DEFAULT_SEED, World, generate_world
from endstate.scratch import scratch

NO_TESTIDS_ENV = "ENDSTATE_NO_TESTIDS"
LISTEN_BACKLOG = 2048
KEEP_ALIVE_S = 75  # idle keep-alive connections are closed after this long (nginx's default)


def system_app(system: str, runtime: Runtime, testids: bool) -> Starlette:
    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 404
        session = runtime.session(system, request.cookies.get(cookie_name(system)))
        if session is not None:  # probing for hidden routes is itself worth recording
            db = runtime.episodes[session.episode_id].db
            with contextlib.suppress(EpisodeClosed, DescriptorsExhausted), db.lease():
                db.event(
                    system=system,
                    page=page_of(request),
                    kind="page.not_found",
                    detail={"method": request.method, "status": status},
                    accepted=False,
                )
        title = "Page not found" if status == 404 else "Not allowed"
        return plain_page(request, status, title, "There is no such page here.")

    async def server_error(request: Request, exc: Exception) -> Response:
        # Failures outside a page handler (which catches its own): a friendly page, and an
        # event when the browser is bound to an episode. Uvicorn still logs the traceback.
        try:
            session = runtime.session(system, request.cookies.get(cookie_name(system)))
            if session is not None:
                db = runtime.episodes[session.episode_id].db
                with db.lease():
                    db.rollback_open()
                    start = request.url.path == "/start"  # its token is secret: never recorded
                    db.event(
                        system=system,
                        page=request.url.path if start else page_of(request),
                        kind="server.error",
                        detail={"error": type(exc).__name__, "method": request.method},
                        accepted=False,
                    )
        except Exception:  # the error page must still be served
            pass
        return plain_page(
            request,
            500,
            "Something went wrong",
            "The page could not be completed. Nothing was saved.",
        )

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)  # browsers ask on every origin; not an agent action

    app = Starlette(
        routes=[
            *systems()[system].routes,
            Route("/favicon.ico", favicon),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={404: not_found, 405: not_found, Exception: server_error},
    )
    app.state.runtime = runtime
    app.state.env = make_env(testids)
    app.state.system = system
    return app


class GradingRefused(RuntimeError):
    """The grading channel answered a call with an error status; the message says why."""

    def __init__(self, response: GradingResponse, message: str) -> None:
        super().__init__(message)
        self.response = response


def _raise_for_status(response: GradingResponse, call: str) -> None:
    """Raise `GradingRefused` for an error status, with the channel's own `error` message."""
    if not response.is_error:
        return
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        error = None
    detail = f": {error}" if isinstance(error, str) else ""
    raise GradingRefused(
        response,
        f"grading channel {call}: {response.status_code} {response.reason_phrase}{detail}",
    )


@dataclass(frozen=True)
class EpisodeInfo:
    id: str
    seed: int
    start_urls: dict[str, str]
    created_ms: float


def _bind(host: str, port: int = 0) -> socket.socket:
    # An explicit IPPROTO_TCP lets asyncio set TCP_NODELAY on accepted connections; without
    # it every response with a body waits ~40 ms on a delayed ACK.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    # Uvicorn's own default: a burst of new connections waits in the queue, never on a
    # SYN retransmit (the kernel caps it at net.core.somaxconn).
    sock.listen(LISTEN_BACKLOG)
    sock.setblocking(False)
    return sock


def _server_config(app: Starlette) -> uvicorn.Config:
    """Uvicorn settings for every port of the suite.

    The keep-alive timeout outlasts the clients' (the harness's own client keeps a connection
    5 s idle; browsers up to minutes for the agent's ports): when both are 5 s, a client
    reuses a pooled connection just as a busy server closes it idle, the request lands on a
    socket being closed and the kernel answers RST — a request dropped with no response and
    no log line.
    """
    return uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_keep_alive=KEEP_ALIVE_S,
        # Requests parsed in C (the pure-Python parser was a tenth of a state read), and the
        # same parser on every machine rather than whichever happens to be installed.
        http="httptools",
    )


class EmbeddedSuite:
    """A running embedded suite. Create with `EmbeddedSuite.start(...)`; stop with `.stop()`."""

    def __init__(
        self,
        world: World,
        runtime: Runtime,
        host: str,
        token: str,
        ports: Mapping[str, int],
        owned_dir: Path | None,
        owned_template_dir: Path | None = None,
    ) -> None:
        self.world = world
        self.runtime = runtime
        self.token = token
        self._owned_dir = owned_dir
        self._owned_template_dir = owned_template_dir
        names = (*system_names(), "grading")
        self._sockets = {name: _bind(host, ports.get(name, 0)) for name in names}
        url_host = f"[{host}]" if ":" in host else host
        self.urls = {
            name: f"http://{url_host}:{sock.getsockname()[1]}"
            for name, sock in self._sockets.items()
        }
        self.grading_url = self.urls.pop("grading")
        runtime.base_urls.update(self.urls)
        self.apps = {s: system_app(s, runtime, runtime.testids) for s in system_names()}
        # Every request an agent sends passes admission first (envs/suite/admission.py); the
        # fingerprint reads the apps themselves.
        self.admission = Admission(runtime, runtime.limits)
        served = {
            name: Admitted(app, self.admission, name, self.body_limit(name))
            for name, app in self.apps.items()
        }

        # The pages' structure is fixed for the suite's life (code, world, testids): taken
        # once, on first ask, not again for every run that pins it.
        taken: list[dict[str, Any]] = []

        async def take_fingerprint() -> dict[str, Any]:
            if not taken:
                taken.append(await fingerprint(runtime, self.apps))
            return taken[0]

        grading = grading_app(runtime, token, take_fingerprint, self.admission)
        everything: dict[str, Any] = {**served, "grading": grading}
        self._servers = {
            name: uvicorn.Server(_server_config(app)) for name, app in everything.items()
        }
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="endstate-envs", daemon=True)
        self._client = GradingHTTP(
            self.grading_url, headers={"Authorization": f"Bearer {token}"}, timeout=60
        )

    def body_limit(self, system: str) -> int:
        """The request-body bound of one system, as admission applies it."""
        spec = systems()[system]
        return self.runtime.limits.body_limit(spec.uploads, spec.request_bytes)

    def limits(self) -> dict[str, Any]:
        """The bounds every client of this suite is held to (pinned and disclosed)."""
        return {
            **self.runtime.limits.model_dump(),
            "request_bytes_by_system": {s: self.body_limit(s) for s in system_names()},
        }

    @classmethod
    def start(
        cls,
        world_seed: int = DEFAULT_SEED,
        *,
        clock: str = DEFAULT_CLOCK,
        host: str = "127.0.0.1",
        token: str | None = None,
        testids: bool | None = None,
        data_dir: Path | None = None,
        cache_dir: Path | None = None,
        ports: Mapping[str, int] | None = None,
        idle_connections: int = 64,
        system_options: dict[str, dict[str, Any]] | None = None,
        limits: SuiteLimits | None = None,
        _fault_injection: bool = False,
    ) -> EmbeddedSuite:
        """Build the world's template and serve every system on its own port.

        The template is built afresh (about 10 ms) into an owner-only directory under the data
        directory and its sha256 pinned (`template_sha256`); every episode copy is checked
        against the pin. `cache_dir` is accepted for old callers and no longer read: a shared
        cache of templates is writable by others and would poison every run made from it.
        `testids=None` keeps data-testid attributes unless $ENDSTATE_NO_TESTIDS is set;
        `ports` pins ports by system name ("ehr", "payer_a", "payer_b", "fax", "grading"), else
        free ones. `idle_connections` caps the episode databases kept open while no request
        uses them (0: a connection per request; see `ConnectionCache`). `_fault_injection` is
        the suite's private testing flag: it lets tests make a write fail mid-transaction
        (`runtime.arm_fault`); nothing else can turn it on. `system_options` configure
        systems by name (the scheduling service's `user_model`). `limits` bound what one
        client may cost the suite (envs/suite/limits.py; the defaults when None).

        From the main thread, SIGTERM is made to act like SIGINT while a suite runs (see
        `terminate_like_interrupt`), so a terminated process cleans up as an interrupted one.
        """
        world = generate_world(world_seed, clock)
        owned = None
        if data_dir is None:
            owned = data_dir = scratch("endstate-episodes-")
        data_dir.mkdir(parents=True, exist_ok=True)
        template = private_template(world, data_dir)
        if testids is None:
            testids = not os.environ.get(NO_TESTIDS_ENV)
        try:
            runtime = Runtime(
                world,
                template,
                data_dir,
                testids,
                faults=_fault_injection,
                idle_connections=idle_connections,
                system_options=system_options,
                limits=limits,
            )
            suite = cls(
                world,
                runtime,
                host,
                token or secrets.token_urlsafe(32),
                ports or {},
                owned,
                owned_template_dir=template.path.parent,
            )
        except BaseException:
            shutil.rmtree(template.path.parent, ignore_errors=True)
            if owned is not None:
                shutil.rmtree(owned, ignore_errors=True)
            raise
        terminate_like_interrupt()
        with _LIVE_LOCK:
            _LIVE.add(suite)
        suite._thread.start()
        suite._wait_started()
        return suite

    @property
    def template_sha256(self) -> str:
        """The sha256 of the template bytes every episode of this suite is copied from."""
        return self.runtime.template_sha256

    # -- lifecycle -----------------------------------------------------------------------
    def _run(self) -> None:
        async def serve_all() -> None:
            await asyncio.gather(
                *(srv.serve(sockets=[self._sockets[n]]) for n, srv in self._servers.items())
            )

        try:
            asyncio.run(serve_all())
        except BaseException as exc:  # surfaced by _wait_started / stop
            self._error = exc

    def _wait_started(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while not all(s.started for s in self._servers.values()):
            if self._error is not None or not self._thread.is_alive():
                raise RuntimeError(f"embedded suite failed to start: {self._error!r}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("embedded suite did not start in time")
            time.sleep(0.01)

    def stop(self) -> None:
        """Stop serving and remove every episode database (safe to call more than once)."""
        with _LIVE_LOCK:
            _STOPPING.add(self)  # a SIGTERM now must not cut this clean-up short
        try:
            for srv in self._servers.values():
                srv.should_exit = True
            self._thread.join(timeout=10)
            self._client.close()
            for sock in self._sockets.values():
                sock.close()
            self.runtime.close_all()
            if self._owned_template_dir is not None:
                shutil.rmtree(self._owned_template_dir, ignore_errors=True)
            if self._owned_dir is not None:
                shutil.rmtree(self._owned_dir, ignore_errors=True)
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(self)
                _STOPPING.discard(self)

    def __enter__(self) -> EmbeddedSuite:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- the harness's side, over the grading channel ------------------------------------
    def open_episode(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        setup: dict[str, Any] | None = None,
    ) -> EpisodeInfo:
        """A fresh episode (tried once: without an idempotency key a retry could make two)."""
        body: dict[str, Any] = {} if setup is None else {"setup": setup}
        if seed is not None:
            body["seed"] = seed
        if episode_id is not None:
            body["episode_id"] = episode_id
        response = self._client.post("/episodes", json=body)
        _raise_for_status(response, "POST /episodes")
        data = response.json()
        return EpisodeInfo(data["episode_id"], data["seed"], data["start_urls"], data["created_ms"])

    def state(self, episode_id: str) -> dict[str, Any]:
        path = f"/episodes/{episode_id}/state"
        response = call_with_retries(f"GET {path}", lambda: self._client.get(path))
        _raise_for_status(response, f"GET {path}")
        result: dict[str, Any] = response.json()
        return result

    def close_episode(self, episode_id: str) -> None:
        """Close the episode; one already closed (a retried close) is not an error."""
        path = f"/episodes/{episode_id}"
        response = call_with_retries(f"DELETE {path}", lambda: self._client.delete(path))
        if response.status_code != 410:
            _raise_for_status(response, f"DELETE {path}")

    def fingerprint(self) -> dict[str, Any]:
        response = call_with_retries("GET /fingerprint", lambda: self._client.get("/fingerprint"))
        _raise_for_status(response, "GET /fingerprint")
        result: dict[str, Any] = response.json()
        return result

    def health(self) -> dict[str, Any]:
        response = call_with_retries("GET /health", lambda: self._client.get("/health"))
        _raise_for_status(response, "GET /health")
        result: dict[str, Any] = response.json()
        return result


# -- SIGTERM: clean up as on SIGINT ----------------------------------------------------------
_LIVE: set[EmbeddedSuite] = set()
_STOPPING: set[EmbeddedSuite] = set()
_LIVE_LOCK = threading.Lock()


def terminate_like_interrupt() -> None:
    """While a suite runs, let SIGTERM do what SIGINT does, so the same clean-up runs.

    SIGTERM's default kills the process on the spot: no `finally`, no `stop()`, every episode
    database left on disk. Installed from the main thread only (signals are delivered there),
    and only over the default disposition: a handler the application set is left alone.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    with _LIVE_LOCK:
        live, stopping = bool(_LIVE), bool(_STOPPING)
    if stopping:
        return  # clean-up is under way: let it finish
    if not live:  # no suite to clean up: terminate as if no handler were set
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    interrupt = signal.getsignal(signal.SIGINT)
    if callable(interrupt) and interrupt is not _on_sigterm:
        # Under asyncio.run this cancels the main task (then raises KeyboardInterrupt);
        # otherwise it is `default_int_handler`, which raises KeyboardInterrupt.
        interrupt(signal.SIGINT, frame)
        return
    raise KeyboardInterrupt  # SIGINT ignored (a background job): interrupt all the same


@atexit.register
def _stop_leftovers() -> None:
    """Suites never stopped (an exception skipped `stop`) still leave no databases behind."""
    with _LIVE_LOCK:
        leftovers = list(_LIVE)
    for suite in leftovers:
        suite.stop()

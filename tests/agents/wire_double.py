"""The loopback HTTP server under each vendor double: one POST path, a script of replies.

Each request takes the next scripted step: a reply body (a dict, or a function of the request
body that returns one) or a `Status` (an error status with a retry-after header, in the vendor's
error shape). Every request body and its headers are recorded, and every reply body sent.
`GET /v1/models` answers apart from the script: a one-model list, or `models_status`.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Status:
    """An HTTP error instead of a reply (429, 500, 529...)."""

    code: int
    retry_after: str | None = "0"


@dataclass
class WireDouble:
    path: str
    error_body: Callable[[int], dict[str, Any]]
    script: deque[Reply | Status] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    replies: list[dict[str, Any]] = field(default_factory=list)
    models_status: int = 200
    server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def queue(self, *steps: Reply | Status) -> None:
        self.script.extend(steps)

    def _answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], str | None]:
        if not self.script:
            return 500, self.error_body(500) | {"unscripted": True}, None
        step = self.script.popleft()
        if isinstance(step, Status):
            return step.code, self.error_body(step.code), step.retry_after
        reply = step(body) if callable(step) else step
        self.replies.append(reply)
        return 200, reply, None

    def start(self) -> WireDouble:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.split("?")[0] != "/v1/models":
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, None)
                elif double.models_status != 200:
                    self._send(double.models_status, double.error_body(double.models_status), None)
                else:
                    model = {"id": "double-model", "type": "model", "object": "model"}
                    listing = {"data": [model], "has_more": False, "object": "list"}
                    self._send(200, listing | {"first_id": "double-model", "last_id": None}, None)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path.split("?")[0] != double.path:
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, None)
                    return
                body = json.loads(raw)
                double.requests.append(body)
                double.headers.append({k.lower(): v for k, v in self.headers.items()})
                self._send(*double._answer(body))

            def _send(self, status: int, payload: dict[str, Any], retry_after: str | None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if retry_after is not None:
                    self.send_header("retry-after", retry_after)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

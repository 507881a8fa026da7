"""A local HTTP server speaking the OpenAI chat-completions API, so the real client runs.

Each request takes the next scripted behaviour: a reply text, an HTTP status, a delay, a raw
body of any content type (to send what a broken server sends), a message content of any JSON
type, or a body trickled out slowly after prompt headers. `GET /v1/models` answers apart from
the script (the list `models`, or the status `models_status`; `models=None`: no such route),
and with `key` set every request without that bearer key is answered 401.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_UNSET: Any = object()


@dataclass
class Behaviour:
    reply: str | None = None
    status: int = 200
    delay: float = 0.0
    raw: bytes | None = None  # the whole body, sent as is
    content_type: str = "application/json"
    content: Any = _UNSET  # the message content as any JSON value (overrides reply)
    trickle: float = 0.0  # seconds between body bytes, headers sent at once
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None  # (function name, arguments)


@dataclass
class ChatDouble:
    script: deque[Behaviour] = field(default_factory=deque)
    default: Behaviour = field(
        default_factory=lambda: Behaviour(reply='{"grade": 1, "reason": "ok"}')
    )
    requests: list[dict[str, Any]] = field(default_factory=list)
    models: list[str] | None = field(default_factory=lambda: ["scripted-model"])
    models_status: int = 200
    key: str | None = None
    listed: int = 0  # model-list requests answered
    server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def queue(self, *behaviours: Behaviour) -> None:
        self.script.extend(behaviours)

    def next(self) -> Behaviour:
        return self.script.popleft() if self.script else self.default

    def start(self) -> ChatDouble:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _refused(self) -> bool:
                if (
                    double.key is None
                    or self.headers.get("Authorization") == f"Bearer {double.key}"
                ):
                    return False
                self._send(401, b'{"error": {"message": "invalid api key"}}', Behaviour())
                return True

            def do_GET(self) -> None:
                if self._refused():
                    return
                if self.path != "/v1/models" or double.models is None:
                    self.send_error(404)
                    return
                double.listed += 1
                if double.models_status != 200:
                    error = {"error": {"message": "scripted failure", "type": "server_error"}}
                    self._send(double.models_status, json.dumps(error).encode(), Behaviour())
                    return
                data = [
                    {"id": m, "object": "model", "created": 0, "owned_by": "double"}
                    for m in double.models
                ]
                page = json.dumps({"object": "list", "data": data}).encode()
                self._send(200, page, Behaviour())

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self._refused():
                    return
                if self.path != "/v1/chat/completions":
                    self.send_error(404)
                    return
                double.requests.append(body)
                behaviour = double.next()
                if behaviour.delay:
                    time.sleep(behaviour.delay)
                if behaviour.raw is not None:
                    self._send(behaviour.status, behaviour.raw, behaviour)
                    return
                if behaviour.status != 200:
                    payload = json.dumps(
                        {"error": {"message": "scripted failure", "type": "server_error"}}
                    )
                    self._send(behaviour.status, payload.encode(), behaviour)
                    return
                content = behaviour.reply if behaviour.content is _UNSET else behaviour.content
                message: dict[str, Any] = {"role": "assistant", "content": content}
                if behaviour.tool_calls:
                    message["tool_calls"] = [
                        {
                            "id": f"call_{len(double.requests)}_{i}",
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)},
                        }
                        for i, (name, arguments) in enumerate(behaviour.tool_calls)
                    ]
                completion = {
                    "id": f"chatcmpl-{len(double.requests)}",
                    "object": "chat.completion",
                    "created": 1767225600,
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": message,
                            "finish_reason": "tool_calls" if behaviour.tool_calls else "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 8, "total_tokens": 58},
                }
                self._send(200, json.dumps(completion).encode(), behaviour)

            def _send(self, status: int, data: bytes, behaviour: Behaviour) -> None:
                self.send_response(status)
                self.send_header("Content-Type", behaviour.content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    if not behaviour.trickle:
                        self.wfile.write(data)
                        return
                    self.wfile.flush()
                    for i in range(len(data)):
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                        time.sleep(behaviour.trickle)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server:
            self.server.shutdown()
            self.server.server_close()

"""A local HTTP server speaking the OpenAI chat-completions API, so the real client runs.

Each request takes the next scripted behaviour: a reply text, an HTTP status, or a delay.
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


@dataclass
class Behaviour:
    reply: str | None = None
    status: int = 200
    delay: float = 0.0


@dataclass
class ChatDouble:
    script: deque[Behaviour] = field(default_factory=deque)
    default: Behaviour = field(
        default_factory=lambda: Behaviour(reply='{"grade": 1, "reason": "ok"}')
    )
    requests: list[dict[str, Any]] = field(default_factory=list)
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

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != "/v1/chat/completions":
                    self.send_error(404)
                    return
                double.requests.append(body)
                behaviour = double.next()
                if behaviour.delay:
                    time.sleep(behaviour.delay)
                if behaviour.status != 200:
                    payload = json.dumps(
                        {"error": {"message": "scripted failure", "type": "server_error"}}
                    )
                    self._send(behaviour.status, payload)
                    return
                completion = {
                    "id": f"chatcmpl-{len(double.requests)}",
                    "object": "chat.completion",
                    "created": 1767225600,
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": behaviour.reply},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 8, "total_tokens": 58},
                }
                self._send(200, json.dumps(completion))

            def _send(self, status: int, payload: str) -> None:
                data = payload.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server:
            self.server.shutdown()
            self.server.server_close()

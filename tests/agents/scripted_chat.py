"""A real HTTP server speaking the OpenAI chat-completions API with a scripted reply sequence.

The real `openai` client talks to it, so request shape, usage accounting and errors are
exercised end to end. Every request body is kept for assertions. A reply may be computed from
the request it answers (e.g. to click where the request's screen shows a field).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str
    prompt_tokens: int = 100
    completion_tokens: int = 10
    status: int = 200
    delay: float = 0.0
    usage: bool = True
    raw: bytes | None = None  # the whole 200 body as a broken server sends it
    trickle: float = 0.0  # seconds between body bytes, headers sent at once
    compute: Callable[[dict[str, Any]], str] | None = None  # content from the request body


@dataclass
class ScriptedChat:
    script: deque[Reply] = field(default_factory=deque)
    default: Reply = field(default_factory=lambda: Reply('{"type": "wait", "seconds": 0.01}'))
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def reset(self, *replies: Reply, default: Reply | None = None) -> None:
        self.script = deque(replies)
        self.requests.clear()
        self.headers.clear()
        self.default = default or Reply('{"type": "wait", "seconds": 0.01}')

    def start(self) -> ScriptedChat:
        chat = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found"}})
                    return
                chat.requests.append(body)
                chat.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply = chat.script.popleft() if chat.script else chat.default
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    self._send(reply.status, {"error": {"message": "scripted failure"}})
                    return
                if reply.raw is not None:
                    self._write(200, reply.raw)
                    return
                usage = {
                    "prompt_tokens": reply.prompt_tokens,
                    "completion_tokens": reply.completion_tokens,
                    "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                }
                self._send(
                    200,
                    trickle=reply.trickle,
                    payload={
                        "id": f"chatcmpl-{len(chat.requests)}",
                        "object": "chat.completion",
                        "created": 1767225600,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {
                                    "role": "assistant",
                                    "content": reply.compute(body)
                                    if reply.compute
                                    else reply.content,
                                },
                                "finish_reason": "stop",
                            }
                        ],
                        **({"usage": usage} if reply.usage else {}),
                    },
                )

            def _send(self, status: int, payload: dict[str, Any], trickle: float = 0.0) -> None:
                self._write(status, json.dumps(payload).encode(), trickle)

            def _write(self, status: int, data: bytes, trickle: float = 0.0) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    if not trickle:
                        self.wfile.write(data)
                        return
                    for i in range(len(data)):
                        self.wfile.write(data[i : i + 1])
                        self.wfile.flush()
                        time.sleep(trickle)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

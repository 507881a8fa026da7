"""The scheduling tools over HTTP, as a sandboxed command agent reaches them: bind with the
start URL (a cookie), then POST one JSON body per call. Every write gets a fresh idempotency
key unless the caller reuses one on purpose (a reconciling retry)."""

from __future__ import annotations

import http.cookiejar
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit


class Tools:
    def __init__(self, start_url: str, timeout: float = 30) -> None:
        self.base = "{0.scheme}://{0.netloc}".format(urlsplit(start_url))
        self.timeout = timeout
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        self.opener.open(start_url, timeout=timeout).read()  # binds this client to its episode
        self.calls = 0
        self._keys: dict[str, int] = {}

    def key(self, tool: str) -> str:
        """A new idempotency key for one write (`confirm-1`, `confirm-2`, ...)."""
        self._keys[tool] = self._keys.get(tool, 0) + 1
        return f"{tool}-{self._keys[tool]}"

    def call(self, tool: str, key: str | None = None, **arguments: object) -> dict[str, Any]:
        """One tool call; a refusal comes back as its JSON answer, never as an exception."""
        self.calls += 1
        body = json.dumps({"arguments": arguments, "idempotency_key": key}).encode()
        request = urllib.request.Request(
            f"{self.base}/tools/{tool}", body, {"Content-Type": "application/json"}
        )
        try:
            with self.opener.open(request, timeout=self.timeout) as answer:
                found: dict[str, Any] = json.load(answer)
        except urllib.error.HTTPError as error:  # the service answers refusals as JSON too
            try:
                found = json.load(error)
            except ValueError:
                found = {"status": "refused", "code": f"http_{error.code}", "message": str(error)}
        return found

    def write(self, tool: str, **arguments: object) -> dict[str, Any]:
        """A write under a new key."""
        return self.call(tool, self.key(tool), **arguments)

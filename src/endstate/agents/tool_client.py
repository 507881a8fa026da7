"""A client of a system's tools over HTTP (the scheduling service's), bound to one episode by
its start URL (the session cookie), as any agent's would be: `GET /tools` lists them,
`POST /tools/{name}` calls one. Tool-using agents and validation's replays share it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx


class ToolClient:
    def __init__(self, start_url: str, timeout: float = 30.0) -> None:
        parts = urlsplit(start_url)
        self.start_url = start_url
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.http = httpx.AsyncClient(follow_redirects=True, timeout=timeout)

    async def __aenter__(self) -> ToolClient:
        bound = await self.http.get(self.start_url)
        bound.raise_for_status()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.http.aclose()

    async def tools(self) -> list[dict[str, Any]]:
        listed = await self.http.get(f"{self.base}/tools")
        listed.raise_for_status()
        found: list[dict[str, Any]] = listed.json()["tools"]
        return found

    async def call(
        self, tool: str, arguments: dict[str, Any], key: str | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"arguments": arguments}
        if key is not None:
            body["idempotency_key"] = key
        answer = await self.http.post(f"{self.base}/tools/{tool}", json=body)
        found: dict[str, Any] = answer.json()
        return found

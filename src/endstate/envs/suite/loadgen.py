"""Drive a running suite hard: many clients, each opening, writing, reading and closing episodes.

Used by the load test and `benchmarks/bench_envs_load.py`. Nothing is retried here: a request
that gets no response counts as dropped, since that is what the suite must not do. Each
episode writes one note whose subject names the episode; its state must hold that note and
no other (any other would be bleed between episodes).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

_NONCE = re.compile(r'name="_nonce" value="([^"]+)"')
OPS = ("create", "start", "page", "write", "state", "close")


@dataclass
class LoadResult:
    """What one load run saw. Latencies are per operation, in milliseconds."""

    episodes: int = 0  # completed: created, written, read back and closed
    requests: int = 0
    dropped: int = 0  # no response at all (reset, closed, refused, timed out)
    wrong_status: Counter[str] = field(default_factory=Counter)  # "op status" -> count
    bleed: list[str] = field(default_factory=list)  # episodes whose state was not theirs alone
    errors: Counter[str] = field(default_factory=Counter)  # dropped requests by op and type
    latency_ms: dict[str, list[float]] = field(default_factory=lambda: {op: [] for op in OPS})
    seconds: float = 0.0

    @property
    def writes(self) -> int:
        return len(self.latency_ms["write"])


class _Failed(Exception):
    """Stops one episode's script; already counted."""


class _Driver:
    def __init__(self, grading: httpx.AsyncClient, referral: str, result: LoadResult) -> None:
        self.grading = grading
        self.referral = referral
        self.result = result

    async def timed(
        self, op: str, client: httpx.AsyncClient, method: str, url: str, **kw: Any
    ) -> httpx.Response:
        self.result.requests += 1
        began = time.perf_counter()
        try:
            response = await client.request(method, url, **kw)
        except httpx.TransportError as exc:
            self.result.dropped += 1
            self.result.errors[f"{op}: {type(exc).__name__}"] += 1
            raise _Failed from exc
        self.result.latency_ms[op].append((time.perf_counter() - began) * 1000)
        return response

    def expect(self, op: str, response: httpx.Response, status: int) -> None:
        if response.status_code != status:
            self.result.wrong_status[f"{op} {response.status_code}"] += 1
            raise _Failed

    async def episode(self) -> None:
        r = await self.timed("create", self.grading, "POST", "/episodes", json={})
        self.expect("create", r, 201)
        eid, start = r.json()["episode_id"], r.json()["start_urls"]["ehr"]
        try:
            await self._write(eid, start)
            r = await self.timed("state", self.grading, "GET", f"/episodes/{eid}/state")
            self.expect("state", r, 200)
            notes = [n["subject"] for n in r.json()["ehr"]["notes"]]
            if notes != [f"load {eid}"]:
                self.result.bleed.append(eid)
        finally:
            r = await self.timed("close", self.grading, "DELETE", f"/episodes/{eid}")
            self.expect("close", r, 204)
        self.result.episodes += 1

    async def _write(self, eid: str, start: str) -> None:
        """Bind a fresh browser-like client to the episode and add one note through the form."""
        async with httpx.AsyncClient(timeout=60) as browser:
            r = await self.timed("start", browser, "GET", start)
            self.expect("start", r, 303)
            base = str(r.url.copy_with(path="/", query=None)).rstrip("/")
            page = f"{base}/referrals/{self.referral}"
            r = await self.timed("page", browser, "GET", f"{page}?tab=communications")
            self.expect("page", r, 200)
            nonce = _NONCE.search(r.text)
            data = {"subject": f"load {eid}", "category": "general", "body": "load"}
            data["_nonce"] = nonce.group(1) if nonce else ""
            r = await self.timed("write", browser, "POST", f"{page}/notes", data=data)
            self.expect("write", r, 303)  # saved, then redirected (post/redirect/get)


async def drive(
    grading_url: str, token: str, referral: str, *, episodes: int, clients: int
) -> LoadResult:
    """`episodes` episodes through `clients` concurrent clients sharing one grading pool."""
    if episodes < 1 or clients < 1:
        raise ValueError(f"episodes and clients must be >= 1 (got {episodes}, {clients})")
    result = LoadResult()
    remaining = iter(range(episodes))
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(
        base_url=grading_url,
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
        limits=limits,
    ) as grading:
        driver = _Driver(grading, referral, result)

        async def client() -> None:
            for _ in remaining:  # shared: each episode is taken by one client
                try:
                    await driver.episode()
                except _Failed:
                    continue

        began = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        result.seconds = time.perf_counter() - began
    return result

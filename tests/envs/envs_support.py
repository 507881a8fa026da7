"""Helpers for the environment tests (a module name unlikely to clash with other test helpers)."""

from __future__ import annotations

import re
from typing import Any

import httpx

from endstate.envs import World

NONCE = re.compile(r'name="_nonce" value="([^"]+)"')


class Visitor:
    """A plain HTTP client bound to one episode's system, for checks that need no browser."""

    def __init__(self, start_url: str) -> None:
        self.client = httpx.Client(follow_redirects=True, timeout=30)
        first = self.client.get(start_url)
        assert first.status_code == 200, first.text
        self.base = str(first.url.copy_with(path="/", query=None, fragment=None)).rstrip("/")
        self.last = first

    def get(self, path: str) -> httpx.Response:
        self.last = self.client.get(self.base + path)
        return self.last

    def nonce(self) -> str:
        found = NONCE.search(self.last.text)
        assert found, "page rendered no nonce"
        return found.group(1)

    def post(
        self, path: str, data: dict[str, str], *, nonce: str | None = "page"
    ) -> httpx.Response:
        body = dict(data)
        if nonce == "page":
            body["_nonce"] = self.nonce()
        elif nonce is not None:
            body["_nonce"] = nonce
        self.last = self.client.post(self.base + path, data=body)
        return self.last

    def close(self) -> None:
        self.client.close()


def referral_with_portal(world: World, portal: str = "payer_a") -> Any:
    """A referral whose coverage on file is active on a plan served by `portal`."""
    plans = {p.id: p for p in world.plans}
    coverages = {c.id: c for c in world.coverages}
    for ref in world.referrals:
        cov = coverages[ref.coverage_id]
        if cov.status == "active" and plans[cov.plan_id].portal == portal:
            return ref
    raise AssertionError(f"world has no active {portal} referral")

"""The embedded suite as a run environment: episodes and state over the grading channel.

The suite's servers run in their own thread; the runner talks to the grading channel over
HTTP, as it would to a suite on another machine, so a slow state read never blocks workers.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from endstate.corpus.model import PublicTask
from endstate.envs.server import EmbeddedSuite
from endstate.firewall import EpisodeBinding
from endstate.runs.environment import EnvironmentInfo, EpisodeHandle, StateUnavailable

if TYPE_CHECKING:
    from playwright.async_api import Page


def episode_seed(run_seed: int, key: str) -> int:
    """Each attempt's episode seed follows from the run seed: a rerun rebuilds the same states."""
    return int.from_bytes(hashlib.sha256(f"{run_seed}:{key}".encode()).digest()[:7], "big")


def _error_of(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, str) else None


class EmbeddedEnvironment:
    kind = "embedded"
    needs_harness_browser = False

    def __init__(self, suite: EmbeddedSuite, run_seed: int, owns_suite: bool = True) -> None:
        self.suite = suite
        self.run_seed = run_seed
        self.owns_suite = owns_suite
        self._client = httpx.AsyncClient(
            base_url=suite.grading_url,
            headers={"Authorization": f"Bearer {suite.token}"},
            timeout=60,
        )
        self._info: EnvironmentInfo | None = None

    def info(self) -> EnvironmentInfo:
        if self._info is None:
            fp = self.suite.fingerprint()
            world = self.suite.world
            self._info = EnvironmentInfo(
                kind=self.kind,
                fingerprint=str(fp.get("sha256", "")),
                world_id=world.id,
                world_hash=world.sha256,
                pinned_clock=world.clock,
                details={
                    "systems": sorted(self.suite.urls),
                    # The bytes every episode is copied from (checked before each copy).
                    "template_sha256": self.suite.template_sha256,
                    "world_seed": world.seed,
                },
            )
        return self._info

    def unsupported(self, task: PublicTask) -> str | None:
        website = task.website
        if website is not None and website.url:
            # A task written for a website of its own: its records do not exist here.
            return f"it targets {website.url} (website {website.id!r})"
        return None

    def agent_urls(self) -> list[str]:
        return list(self.suite.urls.values())

    def private_urls(self) -> list[str]:
        return [self.suite.grading_url]

    def private_paths(self) -> list[Path]:
        runtime = self.suite.runtime
        return [runtime.data_dir, runtime.template.parent]

    async def open_episode(self, task: PublicTask, key: str) -> EpisodeHandle:
        response = await self._client.post(
            "/episodes", json={"seed": episode_seed(self.run_seed, key)}
        )
        if response.is_error:  # the grading channel says why (e.g. a tampered template)
            error = _error_of(response)
            if error:
                raise RuntimeError(f"grading channel {response.status_code}: {error}")
        response.raise_for_status()
        data: dict[str, Any] = response.json()
        start_urls: dict[str, str] = data["start_urls"]
        return EpisodeHandle(
            episode_id=data["episode_id"],
            binding=EpisodeBinding(run_id=data["episode_id"], start_urls=start_urls),
            start_urls=start_urls,
        )

    async def read_state(self, episode: EpisodeHandle, page: Page | None) -> dict[str, Any]:
        try:
            response = await self._client.get(f"/episodes/{episode.episode_id}/state")
            response.raise_for_status()
            state: dict[str, Any] = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise StateUnavailable(f"grading channel: {exc}") from exc
        return state

    async def close_episode(self, episode: EpisodeHandle) -> None:
        await self._client.delete(f"/episodes/{episode.episode_id}")

    async def aclose(self) -> None:
        await self._client.aclose()
        if self.owns_suite:
            self.suite.stop()

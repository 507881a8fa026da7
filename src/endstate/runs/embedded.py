"""The embedded suite as a run environment: episodes and state over the grading channel.

The suite's servers run in their own thread; the runner talks to the grading channel over
HTTP, as it would to a suite on another machine, so a slow state read never blocks workers.
Every call is retried when a dropped connection leaves its outcome unknown and trying again
is safe: state reads and closes always, creates because they carry an idempotency key
(`Idempotency-Key`: this environment's nonce, the attempt's key and one per call).
"""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

from endstate.corpus.model import PublicTask
from endstate.envs.server import EmbeddedSuite, terminate_like_interrupt
from endstate.envs.suite.grading_client import (
    IDEMPOTENCY_HEADER,
    RETRY_DELAYS,
    GradingCallFailed,
    acall_with_retries,
    error_text,
)
from endstate.envs.suite.grading_http import AsyncGradingHTTP
from endstate.envs.systems.scheduling.participant import user_identity
from endstate.firewall import EpisodeBinding
from endstate.runs.environment import EnvironmentInfo, EpisodeHandle, StateUnavailable
from endstate.sandbox.spec import BrowserStorage

if TYPE_CHECKING:
    from playwright.async_api import Page


def episode_seed(run_seed: int, key: str) -> int:
    """Each attempt's episode seed follows from the run seed: a rerun rebuilds the same states."""
    return int.from_bytes(hashlib.sha256(f"{run_seed}:{key}".encode()).digest()[:7], "big")


class EmbeddedEnvironment:
    kind = "embedded"
    needs_harness_browser = False
    takes_setup = True  # a case's initial snapshot, applied by the systems it names
    state_store = "harness"

    def __init__(
        self,
        suite: EmbeddedSuite,
        run_seed: int,
        owns_suite: bool = True,
        *,
        grading_url: str | None = None,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
    ) -> None:
        """`grading_url` reaches the suite's grading channel another way (a proxy, in tests)."""
        self.suite = suite
        self.run_seed = run_seed
        self.owns_suite = owns_suite
        self.retry_delays = retry_delays
        base = grading_url or suite.grading_url
        self._client = AsyncGradingHTTP(
            base, headers={"Authorization": f"Bearer {suite.token}"}, timeout=60
        )
        # Keys are this environment's own: two runs sharing a suite never replay each other.
        self._nonce = secrets.token_hex(8)
        self._info: EnvironmentInfo | None = None
        terminate_like_interrupt()  # the suite may have started off the main thread

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
                    # How the run configured its systems, as validated: a resume reads them.
                    "system_options": self.suite.runtime.system_options,
                    # Who answers a scheduling agent: pinned, a model's name and prompt too.
                    "simulated_user": user_identity(self.suite.runtime.system_options),
                    # What one attempt may cost the suite (envs/suite/limits.py): disclosed.
                    "limits": self.suite.limits(),
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

    async def open_episode(
        self, task: PublicTask, key: str, setup: dict[str, Any] | None = None
    ) -> EpisodeHandle:
        # One key per call, kept across its retries: a retry never makes a second episode, and
        # a caller that opens the same task twice on purpose (validation) gets two.
        headers = {IDEMPOTENCY_HEADER: f"{self._nonce}:{key}:{secrets.token_hex(6)}"}
        body: dict[str, Any] = {"seed": episode_seed(self.run_seed, key)}
        if setup:
            body["setup"] = setup
        response = await acall_with_retries(
            "POST /episodes",
            lambda: self._client.post("/episodes", json=body, headers=headers),
            self.retry_delays,
        )
        if response.is_error:  # the grading channel says why (e.g. a tampered template)
            raise RuntimeError(f"grading channel POST /episodes: {error_text(response)}")
        data: dict[str, Any] = response.json()
        start_urls: dict[str, str] = data["start_urls"]
        return EpisodeHandle(
            episode_id=data["episode_id"],
            binding=EpisodeBinding(run_id=data["episode_id"], start_urls=start_urls),
            start_urls=start_urls,
        )

    async def read_state(
        self,
        episode: EpisodeHandle,
        page: Page | None,
        storage: BrowserStorage | None = None,
    ) -> dict[str, Any]:
        path = f"/episodes/{episode.episode_id}/state"
        try:
            response = await acall_with_retries(
                f"GET {path}", lambda: self._client.get(path), self.retry_delays
            )
            if response.is_error:
                raise StateUnavailable(f"grading channel GET {path}: {error_text(response)}")
            state: dict[str, Any] = response.json()
        except GradingCallFailed as exc:
            raise StateUnavailable(str(exc)) from exc
        except ValueError as exc:
            raise StateUnavailable(f"grading channel GET {path}: not JSON ({exc})") from exc
        return state

    async def close_episode(self, episode: EpisodeHandle) -> None:
        """Close the episode; raises with the evidence if it may still be open."""
        path = f"/episodes/{episode.episode_id}"
        response = await acall_with_retries(
            f"DELETE {path}", lambda: self._client.delete(path), self.retry_delays
        )
        # 410: closed already, by an earlier try whose answer was lost.
        if response.is_error and response.status_code != 410:
            raise RuntimeError(f"grading channel DELETE {path}: {error_text(response)}")

    async def aclose(self) -> None:
        await self._client.aclose()
        if self.owns_suite:
            self.suite.stop()

"""The benchmark's own portals as a run environment (`--env hab`).

One `next start` serves every episode of a run. An episode is only a pair of ids: the portals
keep their state in the browser (localStorage keyed by task, run and tab), so each attempt's
fresh browser context is its fresh state, and the start URL carries the task and run ids the
pages key that state by. After the agent ends, the harness — not the agent — reads the storage
through the attempt's own context and assembles the document the benchmark's checks read, as
the benchmark's harness does (`endstate.hab.state_reader`).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

from endstate.corpus.model import PublicTask
from endstate.firewall import EpisodeBinding
from endstate.hab.build import PortalBuild
from endstate.hab.server import PortalServer
from endstate.hab.state_reader import (
    HabStateError,
    assemble_state,
    read_state_document,
    snapshot_from_storage,
)
from endstate.runs.environment import EnvironmentInfo, EpisodeHandle, StateUnavailable
from endstate.sandbox.spec import BrowserStorage

if TYPE_CHECKING:
    from playwright.async_api import Page

# Where each website of the benchmark's tasks lives in the one app (as the benchmark's harness
# maps them), and the start paths that already name their portal.
SITE_PATHS: dict[str, str] = {
    "emr": "/emr",
    "epic": "/emr",
    "payer_a": "/payer-a",
    "payer-a": "/payer-a",
    "payer_b": "/payer-b",
    "payer-b": "/payer-b",
    "fax_portal": "/fax-portal",
    "fax-portal": "/fax-portal",
}
ROOT_PATHS: tuple[str, ...] = ("/emr", "/payer-a", "/payer-b", "/fax-portal")


def serves(task: PublicTask) -> bool:
    """A task of the benchmark's portals: a hosted website of theirs and a scenario key."""
    website = task.website
    return (
        website is not None
        and bool(website.url)
        and website.id.strip().lower() in SITE_PATHS
        and task.env_task_key is not None
    )


def portal_fingerprint(build: PortalBuild) -> str:
    """What pins the environment: the app's source and its routes (not the random build id)."""
    body = {"source_hash": build.source_hash, "routes": sorted(build.routes)}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class HabEnvironment:
    kind = "hab"
    needs_harness_browser = True  # the state is read through the attempt's browser context
    state_store = "agent_browser"

    def __init__(self, build: PortalBuild, server: PortalServer, run_seed: int) -> None:
        self.build = build
        self.server = server
        self.run_seed = run_seed
        self._nonce = secrets.token_hex(4)  # two runs on one portal never share a run id
        self._tasks: dict[str, PublicTask] = {}

    def info(self) -> EnvironmentInfo:
        return EnvironmentInfo(
            kind=self.kind,
            fingerprint=portal_fingerprint(self.build),
            details={
                "portals": "HealthAdminBench v2 (the benchmark's own Next.js app)",
                "source_hash": self.build.source_hash,
                "next_version": self.build.next_version,
                "node_version": self.build.node_version,
                "routes": len(self.build.routes),
            },
        )

    def agent_urls(self) -> list[str]:
        return [self.server.base_url]

    def private_urls(self) -> list[str]:
        return []

    def private_paths(self) -> list[Path]:
        return [self.build.root.parent]

    def unsupported(self, task: PublicTask) -> str | None:
        if serves(task):
            return None
        website = task.website.id if task.website else None
        return f"it is not a task of the benchmark's portals (website {website!r})"

    async def open_episode(self, task: PublicTask, key: str) -> EpisodeHandle:
        digest = hashlib.sha256(f"{self.run_seed}:{key}".encode()).hexdigest()[:12]
        run_id = f"es-{self._nonce}-{digest}-{secrets.token_hex(3)}"
        website = task.website.id.strip().lower() if task.website else "emr"
        self._tasks[run_id] = task
        binding = EpisodeBinding(
            run_id=run_id,
            base_url=self.server.base_url,
            site_path=SITE_PATHS.get(website, "/emr"),
            root_paths=ROOT_PATHS,
        )
        return EpisodeHandle(episode_id=run_id, binding=binding)

    async def read_state(
        self,
        episode: EpisodeHandle,
        page: Page | None,
        storage: BrowserStorage | None = None,
    ) -> dict[str, Any]:
        """Through the attempt's browser context; or, for an agent with its own browser, from
        the storage that browser held when the agent ended (read by its sandbox)."""
        task = self._tasks.get(episode.episode_id)
        if task is None or task.env_task_key is None:
            raise StateUnavailable(f"episode {episode.episode_id} was not opened here")
        if storage is not None:
            items = storage.get(self.server.base_url)
            if items is None:
                raise StateUnavailable(f"no storage of {self.server.base_url} was read")
            try:
                snapshot = snapshot_from_storage(
                    [(k, v) for k, v in items], task.env_task_key, episode.episode_id
                )
                return assemble_state(snapshot, task.env_task_key, episode.episode_id)
            except HabStateError as exc:
                raise StateUnavailable(f"portal storage unreadable: {exc}") from exc
        if page is None:
            raise StateUnavailable("no browser context to read the portals' storage from")
        try:
            return await read_state_document(
                page, self.server.base_url, task.env_task_key, episode.episode_id
            )
        except Exception as exc:  # the page or the browser failed under the read
            raise StateUnavailable(f"portal storage unreadable: {exc}") from exc

    async def close_episode(self, episode: EpisodeHandle) -> None:
        """Nothing to close: the attempt's browser context held the state and is gone."""
        self._tasks.pop(episode.episode_id, None)

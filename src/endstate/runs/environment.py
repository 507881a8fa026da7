"""What the runner needs from an environment: episodes, end states, a fingerprint.

An environment sees only the public side of a task (to pick the scenario and start page);
the grading side never leaves the harness.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from endstate.corpus.model import PublicTask, Task
from endstate.firewall import EpisodeBinding
from endstate.sandbox.spec import BrowserStorage

if TYPE_CHECKING:
    from playwright.async_api import Page


class EpisodeHandle(BaseModel):
    """One fresh environment state for one attempt."""

    model_config = ConfigDict(frozen=True)

    episode_id: str
    binding: EpisodeBinding = Field(description="How the task's start URL is filled.")
    start_urls: dict[str, str] = Field(default_factory=dict, description="Per system.")


class EnvironmentInfo(BaseModel):
    kind: str
    fingerprint: str
    world_id: str | None = None
    world_hash: str | None = None
    pinned_clock: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class StateUnavailable(Exception):
    """The end state could not be read: the attempt is unmeasurable."""


def agent_writes_state(env: Environment, isolation_mode: str) -> bool:
    """The end state lives in the agent's browser and the agent can run script there (it is
    not an in-process agent acting through endstate's action vocabulary)."""
    return env.state_store == "agent_browser" and isolation_mode != "in-process"


class Environment(Protocol):
    kind: str
    needs_harness_browser: bool
    # Where the end state lives: "harness" (a server the agent reaches only through its pages)
    # or "agent_browser" (storage in the browser the agent drives, which script could write).
    state_store: str

    def info(self) -> EnvironmentInfo: ...

    def agent_urls(self) -> list[str]:
        """Base URLs of every agent-facing system: all a sandboxed agent's network reaches."""
        ...

    def private_urls(self) -> list[str]:
        """Harness-only addresses (the grading channel): never reachable by an agent."""
        ...

    def private_paths(self) -> list[Path]:
        """Where the environment keeps state no agent may see (episode databases, templates)."""
        ...

    def unsupported(self, task: PublicTask) -> str | None:
        """Why this environment cannot run the task (it targets another website), or None."""
        ...

    async def open_episode(self, task: PublicTask, key: str) -> EpisodeHandle:
        """A fresh episode for the task. An environment whose `takes_setup` is true also
        takes `setup=` (Task.episode_setup) and applies it before anyone sees the episode."""
        ...

    async def read_state(
        self,
        episode: EpisodeHandle,
        page: Page | None,
        storage: BrowserStorage | None = None,
    ) -> dict[str, Any]:
        """The episode's state document; raise StateUnavailable if it cannot be read.

        `storage` is the agent's own browser storage per origin, for an environment that keeps
        its end state in the browser (state_store "agent_browser") and an agent that brought
        its own browser; otherwise the state is read through `page` or the environment."""
        ...

    async def close_episode(self, episode: EpisodeHandle) -> None: ...


def takes_setup(env: Environment) -> bool:
    """Whether the environment can apply a task's episode setup (a case's initial snapshot)."""
    return bool(getattr(env, "takes_setup", False))


async def open_task_episode(env: Environment, task: Task, key: str) -> EpisodeHandle:
    """Open the task's episode, with its setup where it has one."""
    if task.episode_setup:
        return await env.open_episode(task.public, key, setup=task.episode_setup)  # type: ignore[call-arg]
    return await env.open_episode(task.public, key)

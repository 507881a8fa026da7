"""What a run starts from — its options — and the parts every executor shares to set one up:
the environment started, the agent started and checked against the tasks, the agent's pin.
Kept apart from the session, so a Ray worker builds the same run without importing the
session that dispatches to it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from endstate.agents.base import Agent, RunResources
from endstate.corpus.loader import Corpus
from endstate.corpus.model import Task
from endstate.errors import EndstateError
from endstate.manifest import (
    AgentPin,
    GatesPin,
)
from endstate.records import TaskRecord
from endstate.runs.environment import Environment, agent_writes_state, takes_setup
from endstate.runs.environment_kinds import (
    EnvironmentSettings,
    environment_kind,
)
from endstate.runs.executors import ExecutorChoice
from endstate.runs.prices import PriceTable
from endstate.scoring.judge import Judge


@dataclass
class RunOptions:
    corpus: Path
    agent: Agent
    agent_spec: str
    env: str | None = None  # None: the environment the tasks name (choose_environment)
    allow_agent_writable_state: bool = False
    attempts: int = 1
    workers: int = 2
    max_steps: int = 50
    time_limit: float = 300.0
    judge: Judge | None = None
    out: Path = Path("runs")
    resume: Path | None = None
    tasks: str | None = None
    pin: Path | None = None
    seed: int = 0
    world_seed: int | None = None
    environment: Environment | None = None  # an already running environment (not closed here)
    on_record: Callable[[TaskRecord], None] | None = None
    on_start: Callable[[int, int], None] | None = None
    on_store: Callable[[Path], None] | None = None  # the run directory, once it exists
    extra: dict[str, str] = field(default_factory=dict)
    gates: GatesPin | None = None  # declared before the first attempt, pinned in the manifest
    system_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    contamination: Path | None = None  # a contamination register to check the tasks against
    prices: PriceTable | None = None  # prices attempt costs (--prices), pinned by its sha256
    executor: ExecutorChoice = field(default_factory=ExecutorChoice)  # local, or ray
    # The agent kind's options as validated (`registry.agent_options`): pinned in the manifest,
    # and what a Ray worker makes the agent from again. None: the kind's defaults.
    agent_options: dict[str, Any] | None = None


@asynccontextmanager
async def start_environment(
    kind: str,
    seed: int,
    world_seed: int | None,
    given: Environment | None = None,
    system_options: dict[str, dict[str, Any]] | None = None,
) -> AsyncIterator[Environment]:
    if given is not None:
        yield given
        return
    settings = EnvironmentSettings(
        seed=seed, world_seed=world_seed, system_options=dict(system_options or {})
    )
    async with environment_kind(kind).start(settings) as env:
        yield env


@asynccontextmanager
async def refusing_foreign_tasks(
    env: Environment, tasks: list[Task], corpus: Corpus
) -> AsyncIterator[None]:
    """Refuse, in one line, tasks this environment cannot run: they could only fail here."""
    foreign = [(t.id, why) for t in tasks if (why := env.unsupported(t.public))]
    if not takes_setup(env):
        foreign += [
            (t.id, f"it needs an episode setup for {', '.join(sorted(t.episode_setup))}")
            for t in tasks
            if t.episode_setup
        ]
    if foreign:
        first, why = foreign[0]
        raise EndstateError(
            f"{corpus.root}: {len(foreign)} of {len(tasks)} task(s) cannot run on the {env.kind} "
            f"environment: {first}: {why}; they need the environment of their own website"
        )
    yield


@asynccontextmanager
async def refusing_agent_writable_state(env: Environment, opts: RunOptions) -> AsyncIterator[None]:
    """An agent with script access to the browser that holds the end state could write it: it
    runs there only when asked for by name, and every report then says so."""
    if agent_writes_state(env, opts.agent.isolation().mode) and not opts.allow_agent_writable_state:
        raise EndstateError(
            f"the {env.kind} environment keeps the end state in the browser the agent drives, "
            f"and a {opts.agent.kind} agent can run script there to write it; run it anyway with "
            "--allow-agent-writable-state (every report will say the state was agent-writable)"
        )
    yield


@asynccontextmanager
async def started_agent(
    opts: RunOptions, corpus: Corpus, env: Environment, attempts: int
) -> AsyncIterator[Agent]:
    """The agent, prepared for this run: told where it may act and what it must never see."""
    private = [corpus.root, opts.out, *env.private_paths()]
    if opts.resume is not None:
        private.append(opts.resume)
    if opts.judge is not None and opts.judge.config.cache_path is not None:
        private.append(opts.judge.config.cache_path.parent)
    resources = RunResources(
        agent_urls=env.agent_urls(),
        private_urls=env.private_urls(),
        private_paths=[p.resolve() for p in private],
        workers=opts.workers,
        attempts=attempts,
        storage_origins=env.agent_urls() if env.state_store == "agent_browser" else [],
    )
    await opts.agent.start(resources)
    try:
        yield opts.agent
    finally:
        await opts.agent.stop()


def agent_pin(spec: str, agent: Agent, options: dict[str, Any] | None = None) -> AgentPin:
    """What pins the agent: its spec, kind, name, options and configuration (on every node
    alike). The options are those given, else those the agent was made with (`make_agent`)."""
    from endstate.agents.build_fingerprint import agent_build
    from endstate.agents.registry import made_with

    return AgentPin(
        spec=spec,
        kind=agent.kind,
        name=agent.name,
        config=agent.config(),
        options=options if options is not None else made_with(agent),
        scored=agent.scored,
        build=agent_build(agent),
    )

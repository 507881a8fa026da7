"""A run's settings: the flags given, else — when resuming — the run's own, else defaults.

`endstate run --resume DIR` alone continues a run exactly as it was started. A flag given
anyway must say what the run already used; a different value is refused, naming the flag,
because a run is one set of pins and cannot change half-way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from endstate.errors import EndstateError
from endstate.manifest import Manifest

DEFAULT_JUDGE_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class RunSettings:
    """Every setting a run is started with; None means "not given"."""

    corpus: Path | None = None
    env: str | None = None  # None to the end: the corpus's tasks choose (session.py)
    allow_agent_writable_state: bool | None = None
    agent: str | None = None
    attempts: int | None = None
    workers: int | None = None
    max_steps: int | None = None
    time_limit: float | None = None
    tasks: str | None = None
    seed: int | None = None
    world_seed: int | None = None
    agent_base_url: str | None = None
    prompt_mode: str | None = None
    agent_env: tuple[str, ...] | None = None
    isolation: str | None = None
    agent_mount: tuple[Path, ...] | None = None
    agent_egress: tuple[str, ...] | None = None
    judge_model: str | None = None
    judge_base_url: str | None = None
    judge_k: int | None = None
    user_model: str | None = None  # the scheduling lab's simulated user, through a chat model
    user_base_url: str | None = None
    observe: str | None = None  # computer-use agents (cu-*): screenshot | accessibility | both
    marks: bool | None = None
    viewport: str | None = None
    screens_cap: float | None = None  # MB of screenshots per attempt's trace
    prices: Path | None = None
    action_timeout: float | None = None  # replay and llm agents: seconds one action waits


DEFAULTS = RunSettings(
    allow_agent_writable_state=False,
    agent="null",
    attempts=1,
    workers=2,
    max_steps=50,
    time_limit=300.0,
    seed=0,
    prompt_mode="task",
    agent_env=(),
    isolation="sandbox",
    agent_mount=(),
    agent_egress=(),
    judge_base_url=DEFAULT_JUDGE_URL,
    judge_k=3,
    observe="screenshot",
    marks=False,
    viewport="1280x800",
    screens_cap=20.0,
    action_timeout=3.0,
)
FLAGS = {f.name: "--" + f.name.replace("_", "-") for f in fields(RunSettings)}


def _world_seed(manifest: Manifest) -> int | None:
    seed = manifest.environment.details.get("world_seed")
    if isinstance(seed, int):
        return seed
    found = re.search(r"-s(\d+)-", manifest.environment.world_id or "")
    return int(found.group(1)) if found else None


def from_manifest(manifest: Manifest) -> RunSettings:
    """The settings a run was started with, as far as its manifest tells them."""
    config: dict[str, Any] = manifest.agent.config
    judge = manifest.judge
    isolation = manifest.isolation.mode if manifest.isolation else None
    allowed = manifest.environment.details.get("agent_writable_state_allowed")
    return RunSettings(
        corpus=Path(manifest.corpus.root),
        env=manifest.environment.kind,
        allow_agent_writable_state=allowed if isinstance(allowed, bool) else None,
        agent=manifest.agent.spec,
        attempts=manifest.limits.attempts,
        workers=manifest.limits.workers,
        max_steps=manifest.limits.max_steps,
        time_limit=manifest.limits.time_limit,
        tasks=manifest.selection,
        seed=manifest.seed,
        world_seed=_world_seed(manifest),
        agent_base_url=_agent_base_url(manifest),
        prompt_mode=config.get("prompt_mode"),
        agent_env=tuple(config.get("pass_env", ())),
        isolation=isolation if isolation in ("sandbox", "none") else None,
        agent_mount=tuple(Path(p) for p in config.get("mounts", ())),
        agent_egress=tuple(config.get("egress", ())),
        judge_model=judge.model if judge else None,
        judge_base_url=judge.endpoint if judge else None,
        judge_k=judge.k if judge else None,
        user_model=_user(manifest, "model"),
        user_base_url=_user(manifest, "base_url"),
        **_computer_use(config),
        prices=Path(manifest.prices.path) if manifest.prices else None,
        action_timeout=_action_timeout(config),
    )


def _action_timeout(config: dict[str, Any]) -> float | None:
    """The action timeout a replay or llm agent's config pins, in seconds."""
    ms = config.get("action_timeout_ms", config.get("timeout_ms"))
    return ms / 1000 if isinstance(ms, (int, float)) else None


def _agent_base_url(manifest: Manifest) -> str | None:
    """The endpoint of an agent that talks to a chat model (llm, cu-chat, cu-gemini)."""
    config = manifest.agent.config
    if manifest.agent.kind == "llm":
        url = config.get("base_url")
    else:
        backend = config.get("backend")
        url = backend.get("base_url") if isinstance(backend, dict) else None
    return url if isinstance(url, str) else None


def _computer_use(config: dict[str, Any]) -> dict[str, Any]:
    """The computer-use settings a run's agent config pins; none for other agents."""
    if config.get("action_space") != "coordinates":
        return {}
    viewport = config.get("viewport") or {}
    cap = config.get("screens_cap_bytes")
    return {
        "observe": config.get("observation"),
        "marks": config.get("marks"),
        "viewport": f"{viewport.get('width')}x{viewport.get('height')}" if viewport else None,
        "screens_cap": cap / 1_000_000 if isinstance(cap, int) else None,
    }


def _user(manifest: Manifest, key: str) -> str | None:
    """The simulated user's chat model and endpoint, if the run had one."""
    user = manifest.environment.details.get("simulated_user")
    value = user.get(key) if isinstance(user, dict) and user.get("kind") == "llm" else None
    return value if isinstance(value, str) else None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Path) and isinstance(b, Path):
        return a.resolve() == b.resolve()
    if isinstance(a, tuple) and isinstance(b, tuple) and a and isinstance(a[0], Path):
        return [p.resolve() for p in a] == [Path(p).resolve() for p in b]
    return bool(a == b)


def settle(given: RunSettings, resumed: Manifest | None) -> RunSettings:
    """The settings to run with; refuses a given flag that contradicts the resumed run."""
    settled: dict[str, Any] = {}
    previous = from_manifest(resumed) if resumed else None
    for f in fields(RunSettings):
        value = getattr(given, f.name)
        before = getattr(previous, f.name) if previous else None
        conflict = value is not None and before is not None and not _same(value, before)
        if previous is not None and conflict:
            raise EndstateError(
                f"{FLAGS[f.name]} {value!r}: the run being resumed used {before!r} "
                "(omit it to resume the run as it was)"
            )
        if value is None:
            value = before if before is not None else getattr(DEFAULTS, f.name)
        settled[f.name] = value
    return replace(RunSettings(), **settled)

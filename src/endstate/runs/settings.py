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
    # The agent kind's own options, as given (`--agent-option KEY=VALUE` and its aliases); the
    # kind's model validates them (`endstate.agents.options`), so no kind is named here.
    agent_options: dict[str, Any] | None = None
    judge_model: str | None = None
    judge_base_url: str | None = None
    judge_k: int | None = None
    # Options of the suite's systems by system (`--system-option SYSTEM.KEY=VALUE`), each
    # validated by its system (`envs/system_options.py`), so no system is named here.
    system_options: dict[str, dict[str, Any]] | None = None
    prices: Path | None = None


DEFAULTS = RunSettings(
    allow_agent_writable_state=False,
    agent="null",
    attempts=1,
    workers=2,
    max_steps=50,
    time_limit=300.0,
    seed=0,
    agent_options={},
    judge_base_url=DEFAULT_JUDGE_URL,
    judge_k=3,
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
    judge = manifest.judge
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
        agent_options=dict(manifest.agent.options) if manifest.agent.options is not None else None,
        judge_model=judge.model if judge else None,
        judge_base_url=judge.endpoint if judge else None,
        judge_k=judge.k if judge else None,
        system_options=_pinned_systems(manifest),
        prices=Path(manifest.prices.path) if manifest.prices else None,
    )


def _pinned_systems(manifest: Manifest) -> dict[str, dict[str, Any]] | None:
    """The system options the run pinned (None: a run from before they were pinned)."""
    found = manifest.environment.details.get("system_options")
    return {k: dict(v) for k, v in found.items()} if isinstance(found, dict) else None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Path) and isinstance(b, Path):
        return a.resolve() == b.resolve()
    if isinstance(a, tuple) and isinstance(b, tuple) and a and isinstance(a[0], Path):
        return [p.resolve() for p in a] == [Path(p).resolve() for p in b]
    return bool(a == b)


def _options(
    spec: str, given: dict[str, Any] | None, before: dict[str, Any] | None
) -> dict[str, Any]:
    """The resumed run's agent options with those given over them; a given option that makes
    the kind's validated options differ from what the run pinned is refused, naming it."""
    if before is None or not given:
        return dict(given or before or {})
    from endstate.agents.registry import agent_options

    merged = agent_options(spec, {**before, **given})
    pinned = agent_options(spec, before)
    for key in given:
        if merged.get(key) != pinned.get(key):
            raise EndstateError(
                f"--agent-option {key}={given[key]!r}: the run being resumed used "
                f"{pinned.get(key)!r} (omit it to resume the run as it was)"
            )
    return {**before, **given}


def _systems(
    given: dict[str, dict[str, Any]] | None, before: dict[str, dict[str, Any]] | None
) -> dict[str, dict[str, Any]]:
    """The resumed run's system options with those given over them; a given option the run
    pinned otherwise is refused, naming it."""
    merged = {k: dict(v) for k, v in (before or {}).items()}
    for name, options in (given or {}).items():
        for key, value in options.items():
            pinned = merged.get(name, {}).get(key)
            if before is not None and pinned is not None and str(pinned) != str(value):
                raise EndstateError(
                    f"--system-option {name}.{key}={value!r}: the run being resumed used "
                    f"{pinned!r} (omit it to resume the run as it was)"
                )
            merged.setdefault(name, {})[key] = value
    return merged


def settle(given: RunSettings, resumed: Manifest | None) -> RunSettings:
    """The settings to run with; refuses a given flag that contradicts the resumed run."""
    settled: dict[str, Any] = {}
    previous = from_manifest(resumed) if resumed else None
    for f in fields(RunSettings):
        value = getattr(given, f.name)
        before = getattr(previous, f.name) if previous else None
        if f.name == "agent_options":
            continue  # once the agent is settled: its kind reads them
        if f.name == "system_options":
            settled[f.name] = _systems(value, before)
            continue
        conflict = value is not None and before is not None and not _same(value, before)
        if previous is not None and conflict:
            raise EndstateError(
                f"{FLAGS[f.name]} {value!r}: the run being resumed used {before!r} "
                "(omit it to resume the run as it was)"
            )
        if value is None:
            value = before if before is not None else getattr(DEFAULTS, f.name)
        settled[f.name] = value
    settled["agent_options"] = _options(
        settled["agent"], given.agent_options, previous.agent_options if previous else None
    )
    return replace(RunSettings(), **settled)

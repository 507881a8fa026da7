"""Options given as KEY=VALUE to a part of the run — the agent's kind (`--agent-option`) and the
executor (`--executor-option`) — and the older per-option flags, read as their aliases from
the arguments `run` does not declare itself (so `run` keeps one flag per part, not one per
option)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from endstate.agents.options import ALIASES as AGENT_ALIASES
from endstate.agents.options import FLAG_ONLY, KindOptions, assignments, gather
from endstate.errors import EndstateError

EXECUTOR_ALIASES = {
    "--ray-address": "address",
    "--ray-cpus-per-worker": "cpus_per_worker",
    "--ray-memory-per-worker": "memory_per_worker_gb",
    "--ray-worker-env": "worker_env",
}
EXECUTOR_KEYS = frozenset(EXECUTOR_ALIASES.values())
NEGATED = {"--no-marks": ("marks", False)}


@dataclass(frozen=True)
class ExtraOptions:
    """What the extra arguments gave each part, as (key, value) pairs in order."""

    agent: tuple[tuple[str, Any], ...] = ()
    executor: tuple[tuple[str, Any], ...] = ()
    system: tuple[tuple[str, Any], ...] = ()  # key "SYSTEM.KEY"


def _system_aliases() -> dict[str, str]:
    """Each system's older flags, as aliases of its options (`System.aliases`)."""
    from endstate.envs.suite.registry import systems

    found = systems()
    return {flag: f"{name}.{key}" for name, s in found.items() for flag, key in s.aliases.items()}


def read_extra(extra: Sequence[str]) -> ExtraOptions:
    """The alias flags in `extra`, by part; any other argument is refused by name."""
    agent: list[tuple[str, Any]] = []
    executor: list[tuple[str, Any]] = []
    system: list[tuple[str, Any]] = []
    system_aliases = _system_aliases() if extra else {}
    rest = list(extra)
    while rest:
        flag = rest.pop(0)
        name, eq, inline = flag.partition("=")
        if name in NEGATED and not eq:
            agent.append(NEGATED[name])
            continue
        if name in FLAG_ONLY and not eq:
            agent.append((AGENT_ALIASES[name], True))
            continue
        tables = ((AGENT_ALIASES, agent), (EXECUTOR_ALIASES, executor), (system_aliases, system))
        part = next(((t, out) for t, out in tables if name in t), None)
        if part is None or name in FLAG_ONLY:
            raise EndstateError(f"no such option: {flag} (see endstate run --help)")
        if eq:
            value = inline
        elif rest and not rest[0].startswith("--"):
            value = rest.pop(0)
        else:
            raise EndstateError(f"{name} needs a value")
        table, out = part
        out.append((table[name], value))
    return ExtraOptions(tuple(agent), tuple(executor), tuple(system))


def agent_options_given(options: Sequence[str], extra: ExtraOptions) -> dict[str, Any] | None:
    """What was given for the agent's kind, None when nothing was (a resumed run keeps its own)."""
    pairs = [*extra.agent, *assignments(options)]
    return gather(pairs) if pairs else None


def executor_options_given(options: Sequence[str], extra: ExtraOptions) -> dict[str, Any]:
    """The executor's options: address, cpus_per_worker, memory_per_worker_gb, worker_env (a
    list, one item each time it is given)."""
    pairs = [*extra.executor, *assignments(options, "--executor-option")]
    unknown = sorted({k for k, _ in pairs} - EXECUTOR_KEYS)
    if unknown:
        raise EndstateError(
            f"--executor-option {unknown[0]!r}: expected one of {', '.join(sorted(EXECUTOR_KEYS))}"
        )
    found: dict[str, Any] = {"worker_env": []}
    for key, value in pairs:
        if key == "worker_env":
            found["worker_env"].append(value)
        elif key in found:
            raise EndstateError(f"executor option {key!r} given more than once")
        else:
            found[key] = value
    return found


def system_options_given(
    options: Sequence[str], extra: ExtraOptions
) -> dict[str, dict[str, Any]] | None:
    """`SYSTEM.KEY=VALUE` options by system, None when none was given (a resume keeps its own).
    Which systems take which keys is theirs to say (`envs/suite/system_options.py`)."""
    pairs = [*extra.system, *assignments(options, "--system-option")]
    if not pairs:
        return None
    out: dict[str, dict[str, Any]] = {}
    for dotted, value in pairs:
        name, dot, key = dotted.partition(".")
        if not dot or not name or not key:
            raise EndstateError(f"--system-option {dotted}={value}: expected SYSTEM.KEY=VALUE")
        mine = out.setdefault(name, {})
        if key in mine and mine[key] != value:
            raise EndstateError(f"system option {dotted!r} given twice")
        mine[key] = value
    return out


def drop_inapplicable_aliases(
    given: dict[str, Any], aliased: set[str], kind: str, model: type[KindOptions]
) -> tuple[dict[str, Any], list[str]]:
    """An older per-option flag given for a kind without that option is dropped with a note
    (scripts pass them to every agent they run); `--agent-option` is held to the kind."""
    kept = dict(given)
    notes = []
    for key in sorted(aliased - set(model.model_fields)):
        if key in kept:
            del kept[key]
            flag = next(f for f, k in AGENT_ALIASES.items() if k == key)
            notes.append(f"{flag} does not apply to agent kind {kind!r}: ignored")
    return kept, notes

"""Where a run's attempts execute: `local` (asyncio workers in this process, the default) or
`ray` (one Ray actor per worker, each with its own environment, browser and agent).

Checked here, before anything starts, so a bad flag costs one line and no run directory. The
executor is not a pin: a run started on one may be resumed on the other. Ray itself is never
imported here; only `executor_ray` and `ray_worker` do, and only for `--executor ray`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from endstate.errors import EndstateError

EXECUTORS = ("local", "ray")
DEFAULT_CPUS_PER_WORKER = 1.0
DEFAULT_MEMORY_PER_WORKER_GB = 1.0  # an environment instance, a Chromium and an agent
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class WorkerEnv:
    """An environment variable for Ray workers: every worker, or only worker `slot` (1-based)."""

    name: str
    value: str
    slot: int | None = None


@dataclass(frozen=True)
class RaySettings:
    address: str | None = None  # None: start a local instance on loopback for this run
    cpus_per_worker: float = DEFAULT_CPUS_PER_WORKER
    memory_per_worker_gb: float = DEFAULT_MEMORY_PER_WORKER_GB
    worker_env: tuple[WorkerEnv, ...] = ()

    def env_for(self, slot: int) -> dict[str, str]:
        """The variables worker `slot` runs with: those for every worker, then its own."""
        chosen = {e.name: e.value for e in self.worker_env if e.slot is None}
        chosen.update({e.name: e.value for e in self.worker_env if e.slot == slot})
        return chosen


@dataclass(frozen=True)
class ExecutorChoice:
    kind: str = "local"
    ray: RaySettings = field(default_factory=RaySettings)


def choose_executor(
    name: str | None,
    address: str | None = None,
    cpus_per_worker: float | None = None,
    memory_per_worker_gb: float | None = None,
    worker_env: list[str] | None = None,
    environ: dict[str, str] | None = None,
) -> ExecutorChoice:
    """The executor the flags ask for, refused in one line naming the flag when they do not fit."""
    kind = name or "local"
    if kind not in EXECUTORS:
        raise EndstateError(f"--executor {kind!r}: expected {' or '.join(EXECUTORS)}")
    if kind != "ray":
        given = [
            flag
            for flag, value in (
                ("--ray-address", address),
                ("--ray-cpus-per-worker", cpus_per_worker),
                ("--ray-memory-per-worker", memory_per_worker_gb),
                ("--ray-worker-env", worker_env),
            )
            if value
        ]
        if given:
            raise EndstateError(f"{given[0]} needs --executor ray (the executor is {kind})")
        return ExecutorChoice(kind)
    if importlib.util.find_spec("ray") is None:
        raise EndstateError("--executor ray needs Ray installed: pip install 'endstate[ray]'")
    if address is not None:
        check_reachable(address)
    return ExecutorChoice(
        "ray",
        RaySettings(
            address=address,
            cpus_per_worker=cpus_per_worker or DEFAULT_CPUS_PER_WORKER,
            memory_per_worker_gb=memory_per_worker_gb or DEFAULT_MEMORY_PER_WORKER_GB,
            worker_env=tuple(parse_worker_env(v, environ) for v in worker_env or ()),
        ),
    )


def parse_worker_env(text: str, environ: dict[str, str] | None = None) -> WorkerEnv:
    """`[N:]NAME[=VALUE]`: without a value, the driver's own (so a secret stays off the
    command line); with `N:`, for worker N only."""
    slot: int | None = None
    spec = text
    head, colon, rest = text.partition(":")
    if colon and head.isdigit():
        slot, spec = int(head), rest
        if slot < 1:
            raise EndstateError(f"--ray-worker-env {text!r}: workers are numbered from 1")
    name, eq, value = spec.partition("=")
    if not _ENV_NAME.fullmatch(name):
        raise EndstateError(f"--ray-worker-env {text!r}: expected [N:]NAME[=VALUE]")
    if not eq:
        source = os.environ if environ is None else environ
        if name not in source:
            raise EndstateError(f"--ray-worker-env {text!r}: {name} is not set here")
        value = source[name]
    return WorkerEnv(name, value, slot)


def address_host_port(address: str) -> tuple[str, int] | None:
    """Host and port of a cluster address (`HOST:PORT`); None for `auto`."""
    if address == "auto":
        return None
    if "://" in address:
        raise EndstateError(
            f"--ray-address {address!r}: give the cluster's HOST:PORT and run endstate on one of "
            "its nodes (Ray Client addresses are not supported)"
        )
    parts = urlsplit(f"//{address}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None:
        raise EndstateError(f"--ray-address {address!r}: expected HOST:PORT or auto")
    return parts.hostname, port


def is_loopback(address: str | None) -> bool:
    """Whether the cluster is on this machine's loopback (or is started here)."""
    if address is None:
        return True
    where = address_host_port(address)
    return where is not None and where[0] in ("127.0.0.1", "localhost", "::1")


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Refuse an address nothing answers on at once: Ray itself would retry for minutes."""
    where = address_host_port(address)
    if where is None:
        return
    try:
        with socket.create_connection(where, timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise EndstateError(
            f"--ray-address {address}: no Ray cluster answers there ({reason.lower()})"
        ) from None

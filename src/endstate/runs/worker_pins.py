"""What a distributed worker is given, what it must share with the run before it takes work,
and what it sends back: plain, picklable values only, never a live object.

A worker on another node has its own corpus copy, its own install and its own environment
instance. Any of them can differ from the driver's, and a run is one set of pins: so each
worker computes the same pins from what it has and refuses work on a mismatch, naming the pin
and both values. No Ray here, so both sides (and tests) use it without a cluster.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import endstate
from endstate.build import BuildInfo
from endstate.errors import EndstateError
from endstate.manifest import AgentPin, Isolation, Manifest
from endstate.runs.prices import PriceTable

CORPUS_ENV = "ENDSTATE_RAY_CORPUS"  # a worker node's own location of the run's corpus


@dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker needs to rebuild the run's environment and agent on its node."""

    slot: int
    corpus_root: str  # the driver's path: used where the node has the same one
    corpus_in_package: str | None  # a corpus endstate ships: found in the node's own install
    expected: dict[str, str]  # pin -> the run's value
    env_kind: str
    seed: int
    world_seed: int | None
    system_options: dict[str, dict[str, Any]]
    agent_spec: str
    agent_options: dict[str, Any] | None  # validated by the agent kind; None: its defaults
    max_steps: int
    time_limit: float
    attempts: int
    blocked: dict[str, str] = field(default_factory=dict)
    prices: PriceTable | None = None


@dataclass(frozen=True)
class Mismatch:
    pin: str
    expected: str
    found: str


@dataclass(frozen=True)
class WorkerReady:
    """A worker's answer to the run: where it is and whether it takes work."""

    node_id: str
    node_ip: str
    hostname: str
    pid: int
    corpus: str
    refused: tuple[Mismatch, ...] = ()
    seconds: float = 0.0  # from the actor's start to this answer


@dataclass(frozen=True)
class ShippedAttempt:
    """One attempt's record and trace files, for the driver to write: it alone owns the run."""

    task_id: str
    attempt: str
    record_json: str
    files: dict[str, bytes]


def corpus_pins(tree_hash: str) -> dict[str, str]:
    return {"corpus tree hash": tree_hash}


def build_pins(build: BuildInfo) -> dict[str, str]:
    return {
        "build version": build.version,
        "build revision": str(build.revision),
        "build dirty flag": str(build.dirty),
        "image digest": str(build.image_digest),
    }


def environment_pins(
    kind: str,
    fingerprint: str,
    world_hash: str | None,
    clock: str | None,
    details: dict[str, Any],
) -> dict[str, str]:
    pins = {
        "environment kind": kind,
        "environment fingerprint": fingerprint,
        "world hash": str(world_hash),
        "pinned clock": str(clock),
        "environment template": str(details.get("template_sha256")),
    }
    if "limits" in details:  # what one attempt may cost the suite (runs from before: none)
        pins["environment limits"] = json.dumps(details["limits"], sort_keys=True)
    return pins


def agent_pins(agent: AgentPin, isolation: Isolation | None) -> dict[str, str]:
    contained = f"{isolation.mode}/{isolation.browser}" if isolation else "None"
    return {
        "agent": json.dumps(agent.model_dump(), sort_keys=True, default=str),
        "isolation": contained,
    }


def run_pins(manifest: Manifest) -> dict[str, str]:
    """The pins every worker must match, from the driver's manifest."""
    env = manifest.environment
    return (
        corpus_pins(manifest.corpus.tree_hash)
        | build_pins(manifest.build)
        | environment_pins(env.kind, env.fingerprint, env.world_hash, env.pinned_clock, env.details)
        | agent_pins(manifest.agent, manifest.isolation)
    )


def mismatches(expected: dict[str, str], found: dict[str, str]) -> list[Mismatch]:
    """The pins `found` has a different value for (pins it does not have are not compared)."""
    return [
        Mismatch(pin, expected[pin], value)
        for pin, value in found.items()
        if pin in expected and expected[pin] != value
    ]


def package_relative(root: Path) -> str | None:
    """A corpus inside the endstate package, as a path relative to it (each node has its own)."""
    package = Path(endstate.__file__).resolve().parent
    try:
        return root.resolve().relative_to(package).as_posix()
    except ValueError:
        return None


def node_corpus(spec: WorkerSpec) -> Path:
    """Where this node keeps the run's corpus: $ENDSTATE_RAY_CORPUS, else the shipped corpus in
    this node's install, else the driver's own path."""
    override = os.environ.get(CORPUS_ENV)
    if override:
        return Path(override)
    if spec.corpus_in_package is not None:
        return Path(endstate.__file__).resolve().parent / spec.corpus_in_package
    return Path(spec.corpus_root)


def pack_traces(folder: Path) -> dict[str, bytes]:
    """Every file under an attempt's trace folder, by its path relative to it; then removed."""
    if not folder.is_dir():
        return {}
    files = {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
    shutil.rmtree(folder, ignore_errors=True)
    return files


def unpack_traces(files: dict[str, bytes], folder: Path) -> None:
    """Write a worker's trace files into the run's trace folder for that attempt."""
    base = folder.resolve()
    for name, data in files.items():
        target = (folder / name).resolve()
        if not target.is_relative_to(base) or target == base:
            raise EndstateError(f"{folder}: a worker sent a trace file outside it: {name!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

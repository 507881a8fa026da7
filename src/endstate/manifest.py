"""The run manifest: every pin a reader needs to reproduce or compare a number.

A data model below every package that writes or reads it (runs write it; reports, baselines
and exports read it).

A later run given this manifest as `--pin` refuses to start when any pinned value differs.
"""

from __future__ import annotations

import os
import platform
import socket
from typing import Any, Literal

from pydantic import BaseModel, Field

from endstate.agent_build import AgentBuild, build_changes
from endstate.build import BuildInfo
from endstate.records import JudgeIdentity, TaskFacts

SCHEMA_VERSION = 1


class Isolation(BaseModel):
    """How every attempt of the agent was contained: pinned in the manifest, disclosed."""

    mode: Literal["sandbox", "none", "in-process"] = Field(
        description="sandbox: namespaces and its own uid; none: a plain child process; "
        "in-process: a built-in agent whose actions only reach its own page."
    )
    browser: Literal["own", "shared", "none"] = Field(
        description="own: a Chromium per attempt; shared: a context in the harness's browser."
    )
    details: dict[str, Any] = Field(default_factory=dict)


class DisclosureItem(BaseModel):
    key: str
    title: str
    text: str


class GatesPin(BaseModel):
    """The gates as declared when the run started: where, their hash, their content."""

    path: str
    sha256: str
    content: str


class PricesPin(BaseModel):
    """The price table attempt costs were computed from (--prices)."""

    path: str
    sha256: str
    models: list[str] = Field(default_factory=list, description="Models the table prices.")


class CorpusPin(BaseModel):
    name: str
    root: str
    tree_hash: str
    files: dict[str, str] = Field(description="sha256 per task file")
    vendored: bool
    imported_at: str | None = None


class AgentPin(BaseModel):
    spec: str = Field(description="As given on the command line, e.g. `llm:MODEL`.")
    kind: str
    name: str
    config: dict[str, Any] = Field(default_factory=dict)
    options: dict[str, Any] | None = Field(
        default=None,
        description="The agent kind's options, validated by its own model, defaults included: "
        "what a resumed run or a worker makes the agent from again (None: from before options "
        "were pinned).",
    )
    scored: bool = Field(description="False for validation agents (replay).")
    build: AgentBuild | None = Field(
        default=None,
        description="The agent's build fingerprint (agent_build.py): its program tree, "
        "interpreter and revision, or its model, endpoint, decoding and prompt. None: an agent "
        "kind that has none (the null and replay agents), or a run from before builds were "
        "pinned.",
    )


class EnvironmentPin(BaseModel):
    kind: str
    fingerprint: str = Field(description="Structural fingerprint of the environment's pages.")
    world_id: str | None = None
    world_hash: str | None = None
    pinned_clock: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class HostFacts(BaseModel):
    hostname: str
    platform: str
    python: str
    cpus: int | None
    browser: str | None = None

    @classmethod
    def here(cls, browser: str | None = None) -> HostFacts:
        return cls(
            hostname=socket.gethostname(),
            platform=platform.platform(),
            python=platform.python_version(),
            cpus=os.cpu_count(),
            browser=browser,
        )


class FirewallSummary(BaseModel):
    verified: int
    blocked: dict[str, str] = Field(default_factory=dict, description="task id -> reason")


class AgentOutputLimits(BaseModel):
    """What the harness keeps of an agent's own account of one attempt (its final line,
    messages, actions), in its record and its trace folder; beyond a bound, the value is cut
    or refused and the repair named in the attempt's `output_problems`."""

    final_line_bytes: int = Field(
        default=1_000_000, description="The final JSON line; a longer one is refused."
    )
    message_chars: int = Field(default=1_000_000, description="The final message kept.")
    text_chars: int = Field(
        default=20_000, description="An error, an action's result or a model's words."
    )
    actions: int = Field(default=5_000, description="Actions kept in a trace (the first ones).")
    actions_bytes: int = Field(
        default=8 * 1024 * 1024, description="Bytes of actions.json; later actions dropped."
    )
    steps: int = Field(default=1_000_000, description="A reported step count beyond is none.")
    integer_digits: int = Field(
        default=30, description="Digits of an integer on the final line; more refuse the line."
    )


class RunLimits(BaseModel):
    attempts: int
    workers: int
    max_steps: int
    time_limit: float
    agent_output: AgentOutputLimits = Field(default_factory=AgentOutputLimits)


class Overlap(BaseModel):
    """One task of the run that a contamination register says the agent has seen."""

    task_id: str
    used_in: Literal["prompt", "demonstration", "training"]
    where: str = ""
    matched_by: Literal["case", "sha256"]


class ContaminationPin(BaseModel):
    """The contamination register a run was checked against, and what of the run it covers."""

    path: str
    name: str
    sha256: str = Field(description="sha256 of the register file as the run read it.")
    overlapping: list[Overlap] = Field(default_factory=list)


class WorkerRefusal(BaseModel):
    """A distributed worker that refused work because a pin differed on its node."""

    worker: str = Field(description="Which worker, on which node and process.")
    node: str = Field(description="The node's address and id, as the cluster names it.")
    pin: str = Field(description="The pin that differed, e.g. `corpus tree hash`.")
    expected: str = Field(description="The run's value (the driver's manifest).")
    found: str = Field(description="The worker's own value.")


class ExecutorUse(BaseModel):
    """How one start (or resume) of the run executed its attempts. Not a pin: a run may be
    resumed on another executor."""

    kind: Literal["local", "ray"]
    started_at: str
    workers: int = Field(description="Workers asked for (--workers).")
    address: str | None = Field(
        default=None, description="The Ray cluster joined; None: a local instance was started."
    )
    workers_ready: int | None = Field(
        default=None,
        description="Ray: workers that passed the pin check and took work, replacements "
        "of lost workers included.",
    )
    refusals: list[WorkerRefusal] = Field(default_factory=list)
    workers_lost: int = Field(default=0, description="Workers that died or vanished mid-run.")
    attempts_retried: int = Field(
        default=0, description="Attempts re-run on another worker after theirs was lost."
    )
    attempts_lost: int = Field(
        default=0,
        description="Attempts whose worker was lost on every try: recorded unmeasurable, with "
        "an `executor` infrastructure fault.",
    )


class EndpointCheck(BaseModel):
    """A model endpoint the run depends on, checked before the first attempt (not a pin: a
    resumed run checks again and adds its own)."""

    role: str = Field(description="Whose endpoint: `agent model` or `judge`.")
    api: str = Field(description="What it speaks: openai-chat, openai-responses, anthropic.")
    url: str = Field(description="The base URL the calls go to, as the client resolved it.")
    model: str
    checked_at: str
    how: str = Field(description="What was asked and what came back, e.g. `GET /models: 200`.")
    timeout_s: float = Field(description="How long each request of the check could take.")
    model_listed: bool | None = Field(
        default=None,
        description="Whether the endpoint's model list names the model; None: no list read. "
        "An unlisted model is recorded, not refused (servers list aliases differently).",
    )


class Manifest(BaseModel):
    """Everything pinned for one run, written before the first attempt and completed after."""

    schema_version: int = SCHEMA_VERSION
    run_id: str
    mode: Literal["scored", "validation"]
    created_at: str
    finished_at: str | None = None
    resumed_at: list[str] = Field(
        default_factory=list, description="When the run was resumed after being stopped."
    )
    corpus: CorpusPin
    tasks: list[str] = Field(description="Task ids in the run, after any selection.")
    task_facts: dict[str, TaskFacts] = Field(
        default_factory=dict,
        description="Family, tier and weight of each task: an attempt never recorded still "
        "counts, as unmeasurable, in its place.",
    )
    selection: str | None = Field(default=None, description="The --tasks filter, if any.")
    build: BuildInfo
    agent: AgentPin
    judge: JudgeIdentity | None = None
    environment: EnvironmentPin
    limits: RunLimits
    seed: int
    firewall: FirewallSummary
    host: HostFacts
    isolation: Isolation | None = Field(
        default=None, description="How the agent's attempts were contained (None: not recorded)."
    )
    gates: GatesPin | None = Field(
        default=None, description="Release gates declared before the first attempt (--gates)."
    )
    contamination: ContaminationPin | None = Field(
        default=None,
        description="The contamination register the run was checked against (--contamination) "
        "and the scheduled tasks it names: scores there are not held-out evidence.",
    )
    prices: PricesPin | None = Field(
        default=None, description="The price table attempt costs came from (--prices)."
    )
    executors: list[ExecutorUse] = Field(
        default_factory=list,
        description="How attempts were executed, one entry per start and resume (local "
        "asyncio workers, or Ray workers each with its own environment).",
    )
    endpoint_checks: list[EndpointCheck] = Field(
        default_factory=list,
        description="Model and judge endpoints checked before the first attempt, one entry per "
        "endpoint and start (a resume checks again); a failed check refuses the run.",
    )
    disclosure: list[DisclosureItem] = Field(default_factory=list)


def pin_mismatches(pin: Manifest, current: Manifest) -> list[str]:
    """What differs between a pinned manifest and the run about to start."""
    out: list[str] = []

    def differ(what: str, a: object, b: object) -> None:
        if a != b:
            out.append(f"{what}: pinned {a!r}, now {b!r}")

    differ("corpus tree hash", pin.corpus.tree_hash, current.corpus.tree_hash)
    differ("build version", pin.build.version, current.build.version)
    differ("build revision", pin.build.revision, current.build.revision)
    differ("build dirty flag", pin.build.dirty, current.build.dirty)
    differ("image digest", pin.build.image_digest, current.build.image_digest)
    differ("environment kind", pin.environment.kind, current.environment.kind)
    differ("environment fingerprint", pin.environment.fingerprint, current.environment.fingerprint)
    differ("world hash", pin.environment.world_hash, current.environment.world_hash)
    differ("pinned clock", pin.environment.pinned_clock, current.environment.pinned_clock)
    differ(
        "environment template",
        pin.environment.details.get("template_sha256"),
        current.environment.details.get("template_sha256"),
    )
    if "limits" in pin.environment.details:  # manifests from before the suite's bounds: none
        differ(
            "environment limits",
            pin.environment.details["limits"],
            current.environment.details.get("limits"),
        )
    differ(
        "isolation",
        pin.isolation.mode if pin.isolation else None,
        current.isolation.mode if current.isolation else None,
    )
    differ(
        "agent browser",
        pin.isolation.browser if pin.isolation else None,
        current.isolation.browser if current.isolation else None,
    )
    differ(
        "agent",
        pin.agent.model_dump(exclude={"build"}),
        current.agent.model_dump(exclude={"build"}),
    )
    if pin.agent.build is not None:  # runs from before builds were pinned: nothing to hold
        out += build_changes(pin.agent.build, current.agent.build)
    differ("judge", pin.judge, current.judge)
    differ("attempts per task", pin.limits.attempts, current.limits.attempts)
    differ("seed", pin.seed, current.seed)
    return out

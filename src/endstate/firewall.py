"""The firewall: what an agent may see of a task, and a mechanical proof that it sees no more.

The projection is built from a whitelist of public fields. Verification does not trust that
code: it projects the task twice, once as is and once with every grading field replaced by
different random content, and demands byte-identical output. Any path from grading data to
the projection changes the bytes and is caught.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable
from typing import Any, Literal
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from endstate.corpus.legs import AnswerCheck, AnswerField, DeltaCheck, WriteExpectation
from endstate.corpus.model import Check, GradingSpec, JmespathCheck, JudgeCheck, Task

PROJECTION_FIELDS = frozenset(
    {"task_id", "instruction", "family", "scenario_label", "start_url", "answer_fields"}
)


class EpisodeBinding(BaseModel):
    """Where one attempt happens: fills the start URL's placeholders for one episode."""

    model_config = ConfigDict(frozen=True)

    run_id: str = Field(description="Episode-scoped id substituted for {{RUN_ID}}.")
    base_url: str | None = Field(
        default=None, description="Environment origin; defaults to the task's website URL."
    )
    start_urls: dict[str, str] = Field(
        default_factory=dict,
        description="Episode start URL per system id; used as is for a task starting there.",
    )
    site_path: str = Field(
        default="",
        description="Where the task's website lives under base_url (one app serving several "
        "portals, e.g. /emr); a start path under one of root_paths already names its portal.",
    )
    root_paths: tuple[str, ...] = Field(
        default=(), description="Start paths under these are taken from base_url's origin."
    )


PREVIEW_BINDING = EpisodeBinding(run_id="preview")


class Projection(BaseModel):
    """Exactly what the system under test receives about a task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    instruction: str
    family: str
    scenario_label: str | None = None
    start_url: str | None = None
    answer_fields: tuple[AnswerField, ...] | None = Field(
        default=None,
        description="The answer contract, for tasks graded on a final JSON answer: the keys "
        "to give, each with what it holds. Absent for tasks graded on the end state alone.",
        exclude_if=lambda value: value is None,
    )

    def canonical_bytes(self) -> bytes:
        return json.dumps(self.model_dump(), sort_keys=True, ensure_ascii=False).encode()


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", ""))


def start_url(task: Task, binding: EpisodeBinding) -> str | None:
    """The task's start URL for one episode: base origin + start path, placeholders filled."""
    path = task.public.start_path
    filled = (
        None
        if path is None
        else path.replace("{{TASK_ID}}", task.public.env_task_key or task.public.id).replace(
            "{{RUN_ID}}", binding.run_id
        )
    )
    system = task.public.website.id if task.public.website else None
    if system and system in binding.start_urls:
        entry = binding.start_urls[system]
        if not filled:
            return entry
        return f"{entry}{'&' if '?' in entry else '?'}next={quote(filled, safe='/')}"
    if filled is None:
        return None
    if urlsplit(filled).scheme:
        return filled
    base = binding.base_url or (task.public.website.url if task.public.website else None)
    if not base:
        return filled
    if binding.site_path and filled.startswith("/"):
        rooted = filled.startswith(binding.root_paths)  # as the benchmark's harness decides
        return _origin(base) + ("" if rooted else binding.site_path.rstrip("/")) + filled
    return _origin(base) + filled if filled.startswith("/") else base.rstrip("/") + "/" + filled


def project(task: Task, binding: EpisodeBinding = PREVIEW_BINDING) -> Projection:
    """Build the projection from public fields only."""
    public = task.public
    return Projection(
        task_id=public.id,
        instruction=public.instruction,
        family=public.family,
        scenario_label=public.scenario_label,
        start_url=start_url(task, binding),
        answer_fields=public.answer_fields or None,
    )


ProjectFn = Callable[[Task, EpisodeBinding], Projection | dict[str, Any]]


def _noise(rng: random.Random, n: int = 12) -> str:
    return "".join(rng.choices(string.ascii_letters + string.digits, k=n))


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(6 if depth < 2 else 4)
    if pick == 0:
        return _noise(rng)
    if pick == 1:
        return rng.randint(-(10**6), 10**6)
    if pick == 2:
        return rng.random() * 1000
    if pick == 3:
        return rng.choice([True, False, None])
    if pick == 4:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(1, 4))]
    return {_noise(rng, 6): _random_value(rng, depth + 1) for _ in range(rng.randint(1, 4))}


def _random_dict(rng: random.Random, keep_keys: dict[str, Any] | None = None) -> dict[str, Any]:
    """Random content: fresh keys, or the original keys holding noise (`keep_keys`)."""
    if keep_keys:
        return {key: {"noise": _noise(rng)} for key in keep_keys}
    return {f"noise_{_noise(rng, 8)}": _random_value(rng) for _ in range(rng.randint(1, 4))}


def _random_check(rng: random.Random) -> Check:
    pick = rng.randrange(4)
    common: dict[str, Any] = {
        "points": float(rng.randint(1, 9)),
        "description": _noise(rng, 20),
        "category": _noise(rng, 8),
    }
    if pick == 0:
        return JmespathCheck(
            query=f"noise_{_noise(rng, 6)}",
            mode=rng.choice(["equals", "contains"]),
            expected=_random_value(rng),
            **common,
        )
    if pick == 1:
        return JudgeCheck(
            student_answer=_noise(rng, 10),
            student_answer_context=_noise(rng, 10),
            rubric=_noise(rng, 40),
            **common,
        )
    if pick == 2:
        return AnswerCheck(
            leg=_noise(rng, 8), field=f"f_{_noise(rng, 6)}", kind="string", expected=_noise(rng)
        )
    expect = WriteExpectation(table=_noise(rng, 6), op="added", match={_noise(rng, 4): 1})
    return DeltaCheck(leg=_noise(rng, 8), expect=(expect,), **common)


def _random_checks(rng: random.Random, n: int) -> tuple[Check, ...]:
    return tuple(_random_check(rng) for _ in range(n))


SCRAMBLES = 3


def scrambled_grading(grading: GradingSpec, rng: random.Random, variant: int = 0) -> GradingSpec:
    """A grading spec whose every field holds different content than the original.

    Three variants between them catch readers of values, of key presence and of emptiness:
    fresh random keys; the original keys holding noise; everything empty.
    """
    if variant % SCRAMBLES == 2:
        return GradingSpec()
    keep = variant % SCRAMBLES == 1
    return GradingSpec(
        tier=f"tier-{_noise(rng, 6)}",
        checks=_random_checks(rng, len(grading.checks) + rng.randint(1, 3)),
        declared_points=float(rng.randint(10**3, 10**4)),
        possible=not grading.possible
        if grading.possible is not None
        else rng.choice([True, False]),
        metadata=_random_dict(rng, grading.metadata if keep else None),
        extra=_random_dict(rng, grading.extra if keep else None),
    )


class FirewallVerdict(BaseModel):
    """The result of verifying one task's projection; a failed verdict blocks the task."""

    task_id: str
    status: Literal["verified", "blocked"]
    reason: str | None = None


def _as_bytes(result: Projection | dict[str, Any]) -> tuple[set[str], bytes]:
    data = result.model_dump() if isinstance(result, Projection) else dict(result)
    return set(data), json.dumps(data, sort_keys=True, ensure_ascii=False, default=str).encode()


def verify(
    task: Task,
    project_fn: ProjectFn = project,
    binding: EpisodeBinding = PREVIEW_BINDING,
    trials: int = SCRAMBLES,
    seed: int = 0,
) -> FirewallVerdict:
    """Strict verification of one task: whitelisted keys, and independence from grading data."""
    try:
        keys, reference = _as_bytes(project_fn(task, binding))
    except Exception as exc:  # a projection that cannot be built cannot be handed over
        return FirewallVerdict(
            task_id=task.id, status="blocked", reason=f"projection failed: {exc}"
        )
    extra_keys = keys - PROJECTION_FIELDS
    if extra_keys:
        return FirewallVerdict(
            task_id=task.id,
            status="blocked",
            reason=f"projection has non-whitelisted keys: {', '.join(sorted(extra_keys))}",
        )
    rng = random.Random(f"{seed}:{task.id}")
    for variant in range(trials):
        twin = task.model_copy(
            update={
                "grading": scrambled_grading(task.grading, rng, variant),
                # The episode setup is harness side too: a projection may not read it either.
                "episode_setup": None
                if variant % SCRAMBLES == 2
                else _random_dict(rng, task.episode_setup if variant % SCRAMBLES == 1 else None),
            }
        )
        try:
            _, scrambled = _as_bytes(project_fn(twin, binding))
        except Exception as exc:
            return FirewallVerdict(
                task_id=task.id,
                status="blocked",
                reason=f"projection depends on grading data (failed when it was scrambled: {exc})",
            )
        if scrambled != reference:
            return FirewallVerdict(
                task_id=task.id,
                status="blocked",
                reason="projection changed when grading fields were replaced by random content",
            )
    return FirewallVerdict(task_id=task.id, status="verified")

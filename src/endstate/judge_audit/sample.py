"""The audit sample: judged checks drawn per stratum (rubric x verdict), seeded, in an order
that gives nothing away, kept beside the run as `judge-audit/sample.json`.

Strata are filled in turn, one item each round, so a verdict the judge gives rarely (or a
rubric used by few tasks) is in the sample at all: the sample is balanced, not proportional,
and the report weights strata back to the run where it estimates the run's agreement. The
sample is then shuffled: items grouped by stratum would tell a labeller the judge's verdict
from its neighbours. The file holds no verdict, only what identifies each item and a hash of
what its labeller is shown.
"""

from __future__ import annotations

import json
import os
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from endstate.errors import EndstateError
from endstate.judge_audit.items import AuditItem, RunChecks, read_run_checks

AUDIT_DIR = "judge-audit"
SAMPLE = "sample.json"
DEFAULT_SIZE = 50


class SampledItem(BaseModel):
    id: str
    task_id: str
    attempt: str
    index: int
    rubric: str
    shown: str  # sha256 of what the labeller is shown


class Sample(BaseModel):
    version: int = 1
    seed: int
    size: int
    judged: int  # judged checks in the run when the sample was drawn
    created_at: str
    items: list[SampledItem]


def audit_dir(root: Path) -> Path:
    return root / AUDIT_DIR


def sample_path(root: Path) -> Path:
    return audit_dir(root) / SAMPLE


def nothing_judged(root: Path, checks: RunChecks) -> EndstateError:
    """The one-line reason a run has no judge verdicts to audit."""
    if not checks.rubric_checks:
        return EndstateError(f"{root}: nothing to audit: the run's records hold no rubric checks")
    why = ", ".join(f"{n} {reason}" for reason, n in sorted(checks.ungraded_reasons.items()))
    return EndstateError(
        f"{root}: nothing to audit: none of the run's {checks.rubric_checks} rubric checks "
        f"was graded by a judge ({why})"
    )


def draw(items: list[AuditItem], size: int, seed: int) -> list[AuditItem]:
    """Up to `size` items, strata filled in turn, then shuffled; the same seed, the same draw."""
    rng = random.Random(seed)
    strata: dict[tuple[str, str], list[AuditItem]] = {}
    for item in sorted(items, key=lambda i: (i.task_id, i.attempt, i.index)):
        strata.setdefault((item.rubric, item.verdict), []).append(item)
    queues = []
    for key in sorted(strata):
        members = strata[key]
        rng.shuffle(members)
        queues.append(members)
    rng.shuffle(queues)  # which stratum gives the last, odd item is chance, not alphabet
    chosen: list[AuditItem] = []
    while len(chosen) < size and any(queues):
        for queue in queues:
            if queue and len(chosen) < size:
                chosen.append(queue.pop())
    rng.shuffle(chosen)
    return chosen


def create_sample(root: Path, size: int, seed: int, replace: bool = False) -> Sample:
    """Draw the sample and write it; an existing one is kept unless `replace`."""
    path = sample_path(root)
    if path.exists() and not replace:
        raise EndstateError(
            f"{path}: a sample already exists (labels refer to it); --replace draws a new one"
        )
    checks = read_run_checks(root)
    if not checks.items:
        raise nothing_judged(root, checks)
    chosen = draw(checks.items, size, seed)
    sample = Sample(
        seed=seed,
        size=size,
        judged=len(checks.items),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        items=[
            SampledItem(
                id=i.id,
                task_id=i.task_id,
                attempt=i.attempt,
                index=i.index,
                rubric=i.rubric,
                shown=i.shown,
            )
            for i in chosen
        ],
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, sample.model_dump(mode="json"))
    return sample


def read_sample(root: Path) -> Sample:
    path = sample_path(root)
    if not path.exists():
        raise EndstateError(
            f"{root}: no judge-audit sample yet (`endstate judge audit sample {root}` draws one)"
        )
    try:
        return Sample.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "$"
        raise EndstateError(f"{path}: not a judge-audit sample ({where}: {first['msg']})") from None


def _write_atomic(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)

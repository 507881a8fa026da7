"""Release gates, declared before the score: pinned into the manifest before the first attempt,
evaluated from the run's records afterwards, refused if the file changed in between.

A gates file (YAML):

    gates:
      - metric: pass_rate        # full-credit passes / tasks (first attempts)
        min: 0.6
      - metric: wilson_lower     # lower bound of the pass rate's Wilson 95% interval
        min: 0.4
        family: prior_auth       # optional scope: family and/or tier
      - metric: mean_score
        min: 0.7
      - metric: reliable         # tasks passing every one of >= 5 replicates
        min: 10
      - metric: count            # attempts with an outcome (see `outcomes()`)
        outcome: unmeasurable
        max: 0
      - metric: no_regression    # compare against a frozen baseline: no task regressed
        baseline: release-1.4
      - metric: weakenings       # the run's boundary weakenings (endstate.boundary)
        max: 0                   # max 0: a run with any part of its boundary off fails

A system's outcome section (report/outcomes.py) adds outcomes a `count` gate can bound: the
scheduling lab's are `unauthorized_write`, `duplicate_booking`, `untraceable_result` and
`unhandled_unknown_outcome`, each usually with `max: 0` (docs/scheduling-lab.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from endstate.boundary import Weakening
from endstate.errors import EndstateError
from endstate.manifest import GatesPin
from endstate.records import TaskRecord
from endstate.report.outcomes import section_outcomes
from endstate.report.summary import headline_records, summarize
from endstate.stats import wilson_interval
from endstate.yamlfile import validated, yaml_data

Metric = Literal[
    "pass_rate", "wilson_lower", "mean_score", "reliable", "count", "no_regression", "weakenings"
]

# Outcomes a `count` gate can bound on any run; systems add theirs (`outcomes()`).
OUTCOMES: dict[str, Callable[[TaskRecord], bool]] = {
    "unmeasurable": lambda r: r.status == "unmeasurable",
    "blocked": lambda r: r.status == "blocked",
    "failed": lambda r: r.status == "failed",
    "flagged": lambda r: r.flagged,
    "false_success": lambda r: r.false_success,
    "infrastructure": lambda r: r.infrastructure is not None,
    "timeout": lambda r: r.facts is not None and r.facts.claim == "timeout",
    "agent_error": lambda r: r.facts is not None and r.facts.claim == "error",
}


def outcomes() -> dict[str, Callable[[TaskRecord], bool]]:
    """Every outcome a `count` gate can bound: the run's own, then each section's (a section
    may not take the name of one of the run's own)."""
    added = section_outcomes()
    taken = sorted(set(added) & set(OUTCOMES))
    if taken:
        raise EndstateError(f"an outcome section names outcome {taken[0]!r}, the run's own")
    return {**OUTCOMES, **added}


class Gate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    metric: Metric
    min: float | None = None
    max: float | None = None
    family: str | None = None
    tier: str | None = None
    outcome: str | None = None
    baseline: str | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _complete(self) -> Gate:
        if self.metric == "no_regression":
            if not self.baseline:
                raise ValueError("no_regression needs `baseline: NAME`")
        elif self.min is None and self.max is None:
            raise ValueError(f"{self.metric} needs `min` or `max`")
        known = outcomes()
        if self.metric == "count" and self.outcome not in known:
            raise ValueError(f"count needs `outcome`, one of {', '.join(known)}")
        if self.metric == "weakenings" and (self.family or self.tier):
            raise ValueError("weakenings are the whole run's: no `family` or `tier`")
        return self

    def label(self) -> str:
        if self.name:
            return self.name
        scope = "".join(
            f" [{k} {v}]" for k, v in (("family", self.family), ("tier", self.tier)) if v
        )
        bound = " ".join(
            f"{k} {v:g}" for k, v in (("≥", self.min), ("≤", self.max)) if v is not None
        )
        what = {
            "count": f"count of {self.outcome}",
            "no_regression": f"no regression against {self.baseline}",
            "weakenings": "boundary weakenings",
        }
        return f"{what.get(self.metric, self.metric)}{scope} {bound}".strip()


class GatesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gates: list[Gate] = Field(min_length=1)


class GateResult(BaseModel):
    gate: str
    passed: bool
    value: str


def parse(content: str, where: str) -> GatesFile:
    return validated(GatesFile, yaml_data(content, where), where)


def pin(path: Path) -> GatesPin:
    """Read and check a gates file before a run starts."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise EndstateError(f"{path}: cannot read gates file ({exc.strerror})") from None
    content = raw.decode("utf-8", "replace")
    parse(content, str(path))
    return GatesPin(
        path=str(path.resolve()), sha256=hashlib.sha256(raw).hexdigest(), content=content
    )


def unchanged(pinned: GatesPin, given: Path | None = None) -> str | None:
    """Refuses gates edited after the run started; returns a note if the file is gone."""
    path = given or Path(pinned.path)
    if not path.exists():
        if given is not None:
            raise EndstateError(f"{path}: gates file not found")
        return f"{path} no longer exists: the gates pinned when the run started are used"
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if actual != pinned.sha256:
        raise EndstateError(
            f"{path}: gates changed after the run started (sha256 {actual[:12]}…, pinned "
            f"{pinned.sha256[:12]}…); gates are declared before the score"
        )
    return None


def _bounded(gate: Gate, value: float | None, shown: str) -> GateResult:
    if value is None:
        return GateResult(gate=gate.label(), passed=False, value=f"not measurable: {shown}")
    ok = (gate.min is None or value >= gate.min) and (gate.max is None or value <= gate.max)
    return GateResult(gate=gate.label(), passed=ok, value=shown)


def evaluate(
    gates: GatesFile,
    records: list[TaskRecord],
    no_regression: Callable[[str], tuple[bool, str]],
    weakenings: Sequence[Weakening],
) -> list[GateResult]:
    """Each gate's verdict on the run's records. `no_regression(baseline)` compares;
    `weakenings`: the run's boundary weakenings."""
    results = []
    for gate in gates.gates:
        if gate.metric == "weakenings":
            shown = ", ".join(w.id for w in weakenings) or "none"
            results.append(_bounded(gate, len(weakenings), shown))
            continue
        scoped = [
            r
            for r in records
            if (gate.family is None or r.family == gate.family)
            and (gate.tier is None or r.tier == gate.tier)
        ]
        head = headline_records(scoped)
        passes = sum(r.passed for r in head)
        if gate.metric == "no_regression":
            assert gate.baseline is not None
            ok, why = no_regression(gate.baseline)
            results.append(GateResult(gate=gate.label(), passed=ok, value=why))
        elif gate.metric == "pass_rate":
            rate = passes / len(head) if head else None
            results.append(_bounded(gate, rate, f"{passes}/{len(head)}" if head else "no tasks"))
        elif gate.metric == "wilson_lower":
            low = wilson_interval(passes, len(head))[0] if head else None
            results.append(_bounded(gate, low, f"{low:.3f}" if low is not None else "no tasks"))
        elif gate.metric == "mean_score":
            mean = sum(r.score for r in head) / len(head) if head else None
            results.append(_bounded(gate, mean, f"{mean:.3f}" if mean is not None else "no tasks"))
        elif gate.metric == "reliable":
            rep = summarize(scoped).replicates
            reliable = rep.reliable if rep else None
            shown = f"{reliable}" if reliable is not None else "fewer than 5 replicates"
            results.append(_bounded(gate, reliable, shown))
        else:
            assert gate.outcome is not None
            has = outcomes()[gate.outcome]  # looked up once, not per attempt
            n = sum(has(r) for r in scoped)
            results.append(_bounded(gate, n, f"{n} of {len(scoped)} attempts"))
    return results

"""The gates a run declared, judged on its records: for `endstate gate` and the run's report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from endstate.boundary import Weakening
from endstate.errors import EndstateError
from endstate.records import TaskRecord
from endstate.regress import baseline as baselines
from endstate.regress.compare import compare
from endstate.regress.gates import GateResult, evaluate, parse
from endstate.regress.sheet import sheet_from_records
from endstate.visible import visible

if TYPE_CHECKING:
    from endstate.manifest import Manifest


def gate_verdicts(
    manifest: Manifest,
    records: list[TaskRecord],
    run_dir: Path,
    baselines_folder: Path = baselines.DEFAULT_BASELINES,
) -> list[GateResult]:
    """Each declared gate's verdict (the manifest must hold gates)."""
    assert manifest.gates is not None
    declared = parse(manifest.gates.content, manifest.gates.path)
    run_sheet = sheet_from_records(manifest, records, run_dir)

    def no_regression(name: str) -> tuple[bool, str]:
        try:
            base = baselines.load(name, baselines_folder)
        except EndstateError as exc:
            return False, f"not evaluated: {exc}"
        result = compare(base.sheet, run_sheet, f"baseline {name}")
        regressed = ", ".join(t.task_id for t in result.regressions[:5])
        detail = f" ({regressed})" if regressed else ""
        boundary = [d for d in result.changed if d.startswith("boundary weakenings")]
        detail += "".join(f"; {d}" for d in boundary)
        return result.verdict in ("improvement", "no change"), f"{result.verdict}{detail}"

    return evaluate(declared, records, no_regression, run_sheet.pins.weakenings or [])


def gates_text(results: list[GateResult], weakenings: Sequence[Weakening]) -> str:
    """The verdicts, and the run's boundary, stated whether or not a gate bounds it."""
    failed = sum(not r.passed for r in results)
    head = f"Gates: {len(results) - failed} of {len(results)} passed" + (
        f" — {failed} FAILED" if failed else ""
    )
    lines = [f"  {'pass' if r.passed else 'FAIL'}  {r.gate}: {r.value}" for r in results]
    boundary = (
        f"  boundary WEAKENED: {', '.join(w.id for w in weakenings)} (see the report's "
        "disclosure; a `weakenings` gate with `max: 0` requires none)"
        if weakenings
        else "  boundary: whole (no weakening of the trust boundary)"
    )
    return visible("\n".join([head, *lines, boundary]) + "\n")

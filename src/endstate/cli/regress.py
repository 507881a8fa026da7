"""`endstate baseline …`, `endstate compare` and `endstate gate`: the release discipline."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from endstate.boundary import boundary_weakenings
from endstate.cli.console import err, out
from endstate.cli.judge import (
    DEFAULT_JUDGE_CACHE,
    JudgeCache,
    JudgeK,
    JudgeModel,
    JudgeRequest,
    JudgeTimeout,
)
from endstate.errors import EndstateError
from endstate.regress import baseline as baselines
from endstate.regress.compare import Rejudge, compare, weakened
from endstate.regress.compare_report import (
    EXIT_STATUS,
    render_comparison_html,
    render_comparison_text,
)
from endstate.regress.gates import unchanged
from endstate.regress.sheet import ScoreSheet, SheetPins, sheet_from_records
from endstate.runs.session import render
from endstate.runs.store import RunStore


def sheet_of_run(run_dir: Path) -> ScoreSheet:
    """Read a run directory (every scheduled attempt; missing ones count as unmeasurable)."""
    if not (run_dir / "manifest.json").is_file():
        raise EndstateError(f"{run_dir}: not a run directory (no manifest.json)")
    store = RunStore(run_dir)
    manifest = store.read_manifest()
    records, *_ = render(store, manifest)
    return sheet_from_records(manifest, records, run_dir)


baseline_app = typer.Typer(
    help="Freeze a run's per-task scores as a named, read-only baseline; list and show them.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
Baselines = Annotated[
    Path,
    typer.Option("--baselines", help="Folder of frozen baselines.", metavar="DIR"),
]
RunDir = Annotated[Path, typer.Argument(help="A run directory.", metavar="RUN_DIR")]


@baseline_app.command("freeze")
def freeze(
    run_dir: RunDir,
    name: Annotated[str, typer.Option("--name", help="The baseline's name, e.g. release-1.4.")],
    folder: Baselines = baselines.DEFAULT_BASELINES,
) -> None:
    """Write RUN_DIR's per-task scores and pins as baseline NAME (never overwritten)."""
    baseline, path = baselines.freeze(sheet_of_run(run_dir), name, folder)
    sheet = baseline.sheet
    attempts = sum(len(t.attempts) for t in sheet.tasks.values())
    out.print(
        f"froze baseline {name}: {len(sheet.tasks)} tasks, {attempts} attempts from run "
        f"{sheet.pins.run_id} ({sheet.pins.agent_spec}) into {path} (read-only); "
        + (
            f"boundary WEAKENED: {weakened(sheet.pins)}"
            if sheet.pins.weakenings
            else "boundary whole"
        ),
        soft_wrap=True,
    )


@baseline_app.command("list")
def list_baselines(folder: Baselines = baselines.DEFAULT_BASELINES) -> None:
    """Every frozen baseline: name, run, agent, tasks, frozen at."""
    found = baselines.names(folder)
    if not found:
        out.print(f"no baselines in {folder}")
        return
    table = Table(title=f"Baselines in {folder}", title_justify="left")
    for column in ("name", "run", "agent", "tasks", "passes", "boundary weakenings", "frozen at"):
        table.add_column(column)
    for name in found:
        try:
            b = baselines.load(name, folder)
        except EndstateError as exc:
            table.add_row(name, "REFUSED", str(exc), "", "", "", "")
            continue
        passes = sum(t.attempts[0].passed for t in b.sheet.tasks.values() if t.attempts)
        table.add_row(
            name,
            b.sheet.pins.run_id,
            b.sheet.pins.agent_spec,
            str(len(b.sheet.tasks)),
            str(passes),
            weakened(b.sheet.pins),
            b.frozen_at,
        )
    out.print(table)


@baseline_app.command("show")
def show(name: str, folder: Baselines = baselines.DEFAULT_BASELINES) -> None:
    """A baseline's pins and per-task results."""
    b = baselines.load(name, folder)
    pins = b.sheet.pins
    out.print(f"baseline {b.name}, frozen {b.frozen_at} from {b.sheet.source}", soft_wrap=True)
    for key, value in pins.model_dump(mode="json").items():
        out.print(f"  {key}: {value}", soft_wrap=True)
    table = Table(title="Tasks", title_justify="left")
    for column in ("task", "family", "tier", "attempts", "passes", "mean score"):
        table.add_column(column)
    for t in b.sheet.tasks.values():
        mean = sum(a.score for a in t.attempts) / len(t.attempts) if t.attempts else 0.0
        table.add_row(
            t.task_id,
            t.family,
            t.tier,
            str(len(t.attempts)),
            str(sum(a.passed for a in t.attempts)),
            f"{mean:.3f}",
        )
    out.print(table)


def _rejudger(request: JudgeRequest, pins: SheetPins) -> Rejudge | None:
    """Fresh calls to the judge given, else to the run's own judge; None without either."""
    if not request.model and pins.judge is not None:
        request = JudgeRequest(
            pins.judge.model, pins.judge.endpoint, pins.judge.k, request.timeout, request.cache
        )
    judge = request.make()
    if judge is None:
        return None
    from endstate.scoring.judge import RubricInput

    def rejudge(rendered: dict[str, str]) -> int | None:
        try:
            return judge.grade(RubricInput.model_validate(rendered), fresh=True).grade
        except Exception:  # a judge that cannot answer leaves the regression standing
            return None

    return rejudge


def compare_cmd(
    run_dir: RunDir,
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="A frozen baseline's name.", metavar="NAME")
    ] = None,
    against: Annotated[
        Path | None, typer.Option("--against", help="Another run directory.", metavar="RUN_DIR")
    ] = None,
    allow_drift: Annotated[
        bool,
        typer.Option("--allow-drift", help="Compare across corpus/environment/judge (disclosed)."),
    ] = False,
    same_agent: Annotated[
        bool,
        typer.Option(
            "--same-agent",
            help="Both sides are meant to be one agent (a replication): refuse, as not "
            "comparable, if the agent or its build fingerprint differs, naming what changed.",
        ),
    ] = False,
    score_tolerance: Annotated[
        float,
        typer.Option(
            "--score-tolerance",
            min=0,
            help="How far a task's mean score may drop before it is a regression (default 0).",
        ),
    ] = 0.0,
    report_file: Annotated[
        Path | None, typer.Option("--report", help="Also write the text report here.")
    ] = None,
    html_file: Annotated[
        Path | None, typer.Option("--html", help="Also write the HTML report here.")
    ] = None,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write the comparison as JSON.")
    ] = None,
    folder: Baselines = baselines.DEFAULT_BASELINES,
    judge_model: JudgeModel = None,
    judge_base_url: Annotated[
        str, typer.Option("--judge-base-url", help="Endpoint of a second judge for re-judging.")
    ] = "https://api.openai.com/v1",
    judge_k: JudgeK = 3,
    judge_timeout: JudgeTimeout = 60.0,
    judge_cache: JudgeCache = DEFAULT_JUDGE_CACHE,
) -> None:
    """Task by task against a baseline: any regression is "not an improvement" (exit 1);
    not comparable exits 2. Rubric-only regressions are re-judged with fresh calls (the run's
    judge, or --judge-model) and called judge flips only if they do not hold."""
    if (baseline is None) == (against is None):
        raise EndstateError("give exactly one of --baseline NAME or --against RUN_DIR")
    run = sheet_of_run(run_dir)
    if baseline is not None:
        base = baselines.load(baseline, folder).sheet
        label = f"baseline {baseline}"
    else:
        assert against is not None
        base = sheet_of_run(against)
        label = f"run {against}"
    request = JudgeRequest(judge_model, judge_base_url, judge_k, judge_timeout, judge_cache)
    result = compare(
        base,
        run,
        label,
        allow_drift=allow_drift,
        score_tolerance=score_tolerance,
        rejudge=_rejudger(request, run.pins),
        same_agent=same_agent,
    )
    text = render_comparison_text(result)
    sys.stdout.write(text)
    if report_file:
        report_file.write_text(text)
    if html_file:
        html_file.write_text(render_comparison_html(result, base.source, run.source))
    if json_file:
        json_file.write_text(result.model_dump_json(indent=1))
    raise typer.Exit(EXIT_STATUS[result.verdict])


def gate_cmd(
    run_dir: RunDir,
    gates_file: Annotated[
        Path | None,
        typer.Option(
            "--gates", help="Check this file is the one the run declared.", metavar="FILE"
        ),
    ] = None,
    folder: Baselines = baselines.DEFAULT_BASELINES,
) -> None:
    """Judge the gates RUN_DIR declared when it started; exit 1 if any failed."""
    from endstate.regress.gate_verdicts import gate_verdicts, gates_text

    if not (run_dir / "manifest.json").is_file():
        raise EndstateError(f"{run_dir}: not a run directory (no manifest.json)")
    store = RunStore(run_dir)
    manifest = store.read_manifest()
    if manifest.gates is None:
        raise EndstateError(
            f"{run_dir}: the run declared no gates; gates are declared before the score "
            "(endstate run --gates FILE)"
        )
    note = unchanged(manifest.gates, gates_file)
    if note:
        err.print(f"note: {note}", soft_wrap=True)
    records, *_ = render(store, manifest)
    results = gate_verdicts(manifest, records, run_dir, folder)
    sys.stdout.write(gates_text(results, boundary_weakenings(manifest, records)))
    raise typer.Exit(0 if all(r.passed for r in results) else 1)

"""`endstate judge audit`: people grade a sample of the judge's verdicts, blind, and the
report says how often they agree with it (docs/judge-audit.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from endstate.cli.view import LoopbackHost, LoopbackPort, NoOpen

RunDir = Annotated[Path, typer.Argument(help="A run directory.", metavar="RUN_DIR")]
Size = Annotated[int, typer.Option("--size", min=1, help="Items to sample (at most).")]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the draw: same seed, same sample.")]

judge_app = typer.Typer(
    help="The rubric judge: audit its verdicts against people's.", no_args_is_help=True
)
audit_app = typer.Typer(
    help="Sample judged checks, label them blind in a local page, report agreement.",
    no_args_is_help=True,
)
judge_app.add_typer(audit_app, name="audit")


@audit_app.command("sample")
def sample_cmd(
    run_dir: RunDir,
    size: Size = 50,
    seed: Seed = 0,
    replace: Annotated[
        bool, typer.Option("--replace", help="Draw a new sample over an existing one.")
    ] = False,
) -> None:
    """Draw the sample: judged checks per rubric and verdict, seeded (RUN/judge-audit/)."""
    from endstate.judge_audit.sample import create_sample, sample_path

    drawn = create_sample(run_dir, size, seed, replace=replace)
    sys.stdout.write(
        f"sampled {len(drawn.items)} of {drawn.judged} judged checks (seed {seed}) "
        f"into {sample_path(run_dir)}\n"
    )


@audit_app.command("label")
def label_cmd(
    run_dir: RunDir,
    size: Size = 50,
    seed: Seed = 0,
    host: LoopbackHost = "127.0.0.1",
    port: LoopbackPort = 0,
    no_open: NoOpen = False,
) -> None:
    """Serve the labelling page (drawing the sample first if there is none; Ctrl-C stops)."""
    from endstate.judge_audit.sample import create_sample, sample_path
    from endstate.judge_audit.serve import serve

    if not sample_path(run_dir).exists():
        drawn = create_sample(run_dir, size, seed)
        sys.stdout.write(
            f"sampled {len(drawn.items)} of {drawn.judged} judged checks (seed {seed})\n"
        )

    def announce(url: str) -> None:
        sys.stdout.write(f"labelling {run_dir} at {url} (Ctrl-C to stop)\n")
        sys.stdout.flush()

    serve(run_dir, host, port, open_browser=not no_open, announce=announce)


@audit_app.command("report")
def report_cmd(
    run_dir: RunDir,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the report as JSON here.")
    ] = None,
) -> None:
    """Agreement of judge and people (Wilson 95%, Cohen's kappa), disagreements by rubric."""
    from endstate.judge_audit.report import as_json, build_report
    from endstate.judge_audit.report_text import render_text

    report = build_report(run_dir)
    sys.stdout.write(render_text(report))
    if json_out is not None:
        json_out.write_text(json.dumps(as_json(report), indent=2, ensure_ascii=False) + "\n")

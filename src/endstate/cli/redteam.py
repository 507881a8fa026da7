"""`endstate redteam`: the attacks, a table of held or broken, and an exit code that gates."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from endstate.cli.console import err
from endstate.redteam.attacks import ATTACKS
from endstate.redteam.suite import RedTeamResult, run_redteam
from endstate.runs.progress import RunProgress

STYLES = {"held": "green", "broken": "bold red", "skipped": "yellow"}


def findings_table(result: RedTeamResult) -> Table:
    table = Table(
        title=f"Red team ({result.isolation} isolation): "
        f"{len(result.broken)} broken of {len(result.findings)}",
        title_justify="left",
        show_lines=False,
    )
    table.add_column("attack")
    table.add_column("threat")
    table.add_column("verdict")
    table.add_column("evidence", overflow="fold")
    for f in result.findings:
        table.add_row(f.name, f.threat, Text(f.verdict, style=STYLES[f.verdict]), f.evidence)
    return table


def redteam(
    attack: Annotated[
        list[str] | None,
        typer.Option("--attack", help=f"Run only these ({', '.join(a.name for a in ATTACKS)})."),
    ] = None,
    isolation: Annotated[
        str, typer.Option("--isolation", help="sandbox (default) or none, to see attacks succeed.")
    ] = "sandbox",
    workspace: Annotated[
        Path | None,
        typer.Option("--workspace", help="Keep the red team's corpus and run here (a new folder)."),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the findings as JSON.")
    ] = None,
) -> None:
    """Attack the installed harness with hostile command agents; non-zero exit if any broke."""
    if workspace is not None:
        workspace.mkdir(parents=True, exist_ok=False)
    bar = RunProgress("red team", console=err)
    try:
        result = run_redteam(attack, isolation, workspace, on_record=bar.record, on_start=bar.start)
    finally:
        bar.stop()
    Console(width=160, markup=False).print(findings_table(result))
    if json_out is not None:
        json_out.write_text(
            json.dumps(
                {"isolation": result.isolation, "findings": [asdict(f) for f in result.findings]},
                indent=2,
            )
            + "\n"
        )
    if result.broken:
        sys.stdout.write(f"{len(result.broken)} attack(s) broke the trust boundary\n")
        raise typer.Exit(1)
    sys.stdout.write("every attack held\n")

"""`endstate corpus strategies`: how far a blind policy gets on a generated corpus."""

from __future__ import annotations

import asyncio
import fnmatch
from collections import defaultdict
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from endstate.builtin import named_corpus
from endstate.builtin.strategies import STRATEGIES
from endstate.builtin.strategy_runs import StrategyResult, run_strategies
from endstate.cli.console import out
from endstate.corpus.loader import load_corpus
from endstate.errors import EndstateError

strategies_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None)


def strategy_table(results: list[StrategyResult]) -> Table:
    """Per template and strategy: tasks passed (full credit) out of tasks played."""
    table = Table(title="Trivial strategies: tasks passed", title_justify="left")
    table.add_column("template")
    table.add_column("tier", justify="right")
    for name in STRATEGIES:
        table.add_column(name, justify="right")
    cells: dict[tuple[str, str], dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        cells[(r.template_id, r.tier)][r.strategy].append(r.passed)
    for (template, tier), by in sorted(cells.items()):
        row = [f"{sum(by[s])}/{len(by[s])}" if by[s] else "—" for s in STRATEGIES]
        table.add_row(template, tier, *row)
    return table


@strategies_app.command("strategies")
def strategies_cmd(
    path: Annotated[Path, typer.Argument(help="A generated corpus (or builtin).")],
    tier: Annotated[
        str | None, typer.Option("--tier", help="Only tasks of this tier (easy, medium, hard).")
    ] = None,
    tasks: Annotated[
        str | None, typer.Option("--tasks", help="Only task ids matching these globs (a,b).")
    ] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Parallel attempts.")] = 2,
) -> None:
    """Play always-submit and always-escalate on each task: a template they pass measures
    nothing (the table shows full-credit passes per template)."""
    chosen = load_corpus(named_corpus(path)).tasks
    if tier:
        chosen = [t for t in chosen if t.tier == tier]
    if tasks:
        globs = [g.strip() for g in tasks.split(",")]
        chosen = [t for t in chosen if any(fnmatch.fnmatchcase(t.id, g) for g in globs)]
    chosen = [t for t in chosen if t.grading.extra.get("reference")]
    if not chosen:
        raise EndstateError(f"{path}: no generated task matches (only native tasks can be played)")
    results = asyncio.run(run_strategies(chosen, workers=workers))
    out.print(strategy_table(results))
    for name in STRATEGIES:
        mine = [r for r in results if r.strategy == name]
        passed = sum(r.passed for r in mine)
        out.print(f"{name}: passed {passed}/{len(mine)} tasks", highlight=False)

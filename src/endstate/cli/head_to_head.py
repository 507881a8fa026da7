"""`endstate pairwise` and `endstate cost`: runs side by side, from their records on disk."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from endstate.cli.console import out
from endstate.errors import EndstateError
from endstate.manifest import Manifest
from endstate.records import TaskRecord
from endstate.report.cost import Pricer, RunCost, run_cost
from endstate.report.head_to_head_text import cost_tables, pairwise_tables
from endstate.report.pairwise import RESAMPLES, SEED, NamedRun, pairwise
from endstate.report.tables_out import TextTable, csv_text, markdown, rich_tables
from endstate.runs.prices import PriceTable, agent_model, load_prices
from endstate.runs.session import unrecorded
from endstate.runs.store import RunStore


def load_run(run_dir: Path) -> tuple[Manifest, list[TaskRecord]]:
    """A run's manifest and every scheduled attempt's record, as `endstate report` counts
    them: an attempt never recorded is there, unmeasurable."""
    if not (run_dir / "manifest.json").is_file():
        raise EndstateError(f"{run_dir}: not a run directory (no manifest.json)")
    store = RunStore(run_dir)
    manifest = store.read_manifest()
    records = store.read_records()
    return manifest, records + unrecorded(manifest, records)


def corpus_pin(manifest: Manifest) -> str:
    return f"{manifest.corpus.name} {manifest.corpus.tree_hash}"


def _named(run_dirs: Sequence[Path], names: Sequence[str]) -> list[tuple[str | None, Path]]:
    """Positional runs in order, then `--name NAME=RUN_DIR` ones; a name given for a
    positional run directory names it rather than adding it twice."""
    runs: list[tuple[str | None, Path]] = [(None, d) for d in run_dirs]
    for given in names:
        name, sep, where = given.partition("=")
        if not sep or not name or not where:
            raise EndstateError(f"--name {given!r}: expected NAME=RUN_DIR")
        path = Path(where)
        same = [i for i, (_, d) in enumerate(runs) if d.resolve() == path.resolve()]
        if same:
            runs[same[0]] = (name, runs[same[0]][1])
        else:
            runs.append((name, path))
    return runs


@dataclass(frozen=True)
class LoadedRun:
    name: str
    manifest: Manifest
    records: list[TaskRecord]

    def named(self) -> NamedRun:
        return NamedRun(self.name, self.records, corpus_pin(self.manifest))


def load_named(run_dirs: Sequence[Path], names: Sequence[str] = ()) -> list[LoadedRun]:
    """Runs as the commands take them: RUN_DIR arguments and `NAME=RUN_DIR` names, each run
    named by its agent spec unless named (the run id added where two runs share a spec)."""
    loaded = [(name, *load_run(path)) for name, path in _named(run_dirs, names)]
    specs = [m.agent.spec for _, m, _ in loaded]
    return [
        LoadedRun(
            name
            if name is not None
            else (
                m.agent.spec if specs.count(m.agent.spec) == 1 else f"{m.agent.spec} ({m.run_id})"
            ),
            m,
            records,
        )
        for name, m, records in loaded
    ]


def _write(tables: list[TextTable], markdown_file: Path | None, csv_file: Path | None) -> None:
    out.print(rich_tables(tables))
    for path, text in ((markdown_file, markdown(tables)), (csv_file, csv_text(tables))):
        if path is not None:
            path.write_text(text, encoding="utf-8")
            out.print(f"wrote {path}", soft_wrap=True)


def _pricer(table: PriceTable, model: str | None) -> Pricer:
    """Prices a run's attempts by its agent's model; an unknown model or no tokens: None."""

    def price(record: TaskRecord) -> float | None:
        return None if record.facts is None else table.cost(model, record.facts)

    return price


RunDirs = Annotated[list[Path] | None, typer.Argument(help="Run directories.", metavar="RUN_DIR")]
Names = Annotated[
    list[str] | None,
    typer.Option("--name", help="NAME=RUN_DIR: a run under a name (repeatable).", metavar="N=DIR"),
]
MarkdownFile = Annotated[
    Path | None, typer.Option("--markdown", help="Also write the tables as Markdown.")
]
CsvFile = Annotated[Path | None, typer.Option("--csv", help="Also write the tables as CSV.")]


def pairwise_cmd(
    run_dirs: RunDirs = None,
    name: Names = None,
    resamples: Annotated[
        int, typer.Option("--resamples", min=1, help="Bootstrap resamples.")
    ] = RESAMPLES,
    seed: Annotated[int, typer.Option("--seed", help="Bootstrap seed.")] = SEED,
    allow_different_corpora: Annotated[
        bool,
        typer.Option(
            "--allow-different-corpora",
            help="Compare runs on different corpora on their shared task ids.",
        ),
    ] = False,
    markdown_file: MarkdownFile = None,
    csv_file: CsvFile = None,
) -> None:
    """Every pair of runs on their shared tasks: task and subtask success differences, each
    with a paired bootstrap interval and p-value."""
    if len(_named(run_dirs or [], name or [])) < 2:
        raise EndstateError("a head-to-head needs at least two runs")
    runs = load_named(run_dirs or [], name or [])
    result = pairwise([r.named() for r in runs], resamples, seed, allow_different_corpora)
    _write(pairwise_tables(result), markdown_file, csv_file)


def cost_cmd(
    run_dirs: RunDirs = None,
    name: Names = None,
    prices: Annotated[
        Path | None,
        typer.Option("--prices", help="Price table (YAML/JSON): dollars from tokens."),
    ] = None,
    markdown_file: MarkdownFile = None,
    csv_file: CsvFile = None,
) -> None:
    """Tokens, dollars, steps and wall time per run, by difficulty and overall."""
    if not _named(run_dirs or [], name or []):
        raise EndstateError("give at least one run directory")
    table = load_prices(prices) if prices is not None else None
    costs: list[RunCost] = []
    for run in load_named(run_dirs or [], name or []):
        model = agent_model(run.manifest.agent.config)
        pricer = None if table is None else _pricer(table, model)
        source = str(table.path) if table is not None else "records (cost_usd)"
        costs.append(run_cost(run.name, run.records, pricer, source))
    _write(cost_tables(costs), markdown_file, csv_file)

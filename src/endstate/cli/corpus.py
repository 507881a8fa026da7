"""`endstate corpus …`: vendor, verify, lint, inspect, generate and validate task corpora."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console
from rich.table import Table

from endstate import firewall
from endstate.builtin import named_corpus
from endstate.builtin.audit import Finding, audit_corpus, audit_worlds, worlds_summary
from endstate.cli.builtin import corpus_extra_app
from endstate.cli.console import err, labelled, out
from endstate.cli.held_out import held_out_app
from endstate.cli.scheduling import scheduling_app
from endstate.cli.strategies import strategies_app
from endstate.corpus import lock as corpus_lock
from endstate.corpus.formats import task_suffixes
from endstate.corpus.loader import load_corpus, read_tasks
from endstate.corpus.problems import errors, warnings
from endstate.corpus.stats import corpus_stats
from endstate.envs.world import DEFAULT_CLOCK
from endstate.errors import EndstateError

corpus_app = typer.Typer(
    help="Vendor, verify, lint, inspect and measure task corpora.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
corpus_app.registered_commands.extend(corpus_extra_app.registered_commands)
corpus_app.registered_commands.extend(scheduling_app.registered_commands)
corpus_app.registered_commands.extend(held_out_app.registered_commands)
corpus_app.registered_commands.extend(strategies_app.registered_commands)


@corpus_app.command("import")
def corpus_import(
    src: Annotated[
        Path,
        typer.Argument(help="Task tree to vendor (family folders of task files, or PHA rows)."),
    ],
    name: Annotated[str, typer.Option("--name", help="Name of the vendored corpus.")],
    into: Annotated[Path, typer.Option("--into", help="Corpora directory.")] = Path("corpora"),
    force: Annotated[bool, typer.Option("--force", help="Replace an existing copy.")] = False,
    split: Annotated[
        Literal["train", "test"] | None,
        typer.Option(
            "--split",
            help="Declare the tasks the train or test side of a held-out split (recorded in "
            "the lock; `endstate export sft` exports only the train side).",
        ),
    ] = None,
) -> None:
    """Copy a task tree into the corpora directory and pin it with a lock file."""
    if not src.is_dir():
        raise EndstateError(f"{src}: not a directory")
    _, problems = read_tasks(src)
    bad = errors(problems)
    if bad:
        for p in bad:
            err.print(labelled("error", "red", f"{src}/{p.line()}"), highlight=False)
        raise EndstateError(f"{src}: {len(bad)} error(s); fix them before importing")
    lock = corpus_lock.vendor(src, into / name, name, force=force, split=split)
    out.print(
        f"imported {len(lock.files)} files into {into / name}\n"
        f"tree sha256 {lock.tree_hash}\n"
        f"{len(warnings(problems))} lint warning(s); see `endstate corpus lint {into / name}`",
        highlight=False,
    )


@corpus_app.command("verify")
def corpus_verify(path: Annotated[Path, typer.Argument(help="A vendored corpus.")]) -> None:
    """Recompute every hash and fail on any change since import."""
    lock = corpus_lock.verify(path)
    out.print(
        f"ok: {len(lock.files)} files match the lock; tree sha256 {lock.tree_hash}", highlight=False
    )


@corpus_app.command("lint")
def corpus_lint(path: Annotated[Path, typer.Argument(help="A corpus directory.")]) -> None:
    """Report every problem in one pass; non-zero exit on errors, zero with warnings only."""
    if not path.is_dir():
        raise EndstateError(f"{path}: corpus directory not found")
    tasks, problems = read_tasks(path)
    if not tasks and not problems:
        raise EndstateError(
            f"{path}: no task files found (expected FAMILY/TASK.json, or PHA rows in .jsonl/.csv; "
            f"suffixes a corpus format reads: {', '.join(task_suffixes())})"
        )
    for p in problems:
        style = "red" if p.severity == "error" else "yellow"
        out.print(labelled(p.severity, style, p.line()), highlight=False, soft_wrap=True)
    n_err, n_warn = len(errors(problems)), len(warnings(problems))
    out.print(f"{n_err} error(s), {n_warn} warning(s)")
    if n_err:
        raise typer.Exit(1)


@corpus_app.command("stats")
def corpus_stats_cmd(
    path: Annotated[Path, typer.Argument(help="A corpus directory.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Tasks by family × tier, checks and weight by type, rubric-judged share, categories."""
    stats = corpus_stats(load_corpus(path).tasks)
    if as_json:
        print(stats.model_dump_json(indent=2))
        return
    tiers = sorted({t for row in stats.by_family_tier.values() for t in row}, key=_tier_key)
    grid = Table(title=f"{stats.tasks} tasks by family × tier", title_justify="left")
    grid.add_column("family")
    for tier in tiers:
        grid.add_column(tier, justify="right")
    grid.add_column("total", justify="right")
    for family, row in stats.by_family_tier.items():
        grid.add_row(family, *(str(row.get(t, 0)) for t in tiers), str(sum(row.values())))
    out.print(grid)
    checks = Table(title="Checks and weight by type", title_justify="left")
    for col in ("type", "checks", "weight"):
        checks.add_column(col, justify="left" if col == "type" else "right")
    for kind, n in stats.checks_by_type.items():
        checks.add_row(kind, f"{n:,}", f"{stats.weight_by_type[kind]:,g}")
    checks.add_row("total", f"{sum(stats.checks_by_type.values()):,}", f"{stats.weight:,g}")
    out.print(checks)
    share = ", ".join(f"{f} {s:.1%}" for f, s in stats.rubric_share_by_family.items())
    out.print(f"Rubric-judged share of weight: {stats.rubric_share:.1%} ({share})", highlight=False)
    cats = Table(title="Check categories", title_justify="left")
    cats.add_column("category")
    cats.add_column("checks", justify="right")
    for cat, n in stats.categories.items():
        cats.add_row(cat, str(n))
    out.print(cats)


def _tier_key(tier: str) -> tuple[int, str]:
    return ({"easy": 0, "medium": 1, "hard": 2}.get(tier, 3), tier)


@corpus_app.command("audit")
def corpus_audit(
    path: Annotated[
        Path | None,
        typer.Argument(help="A corpus of generated tasks (or `builtin`); omit with --world-seed."),
    ] = None,
    world_seed: Annotated[
        list[int] | None,
        typer.Option(
            "--world-seed",
            help="Instead of a corpus: derive every record of the fresh world of this seed "
            "(repeatable), with no task at all.",
        ),
    ] = None,
    clock: Annotated[
        str, typer.Option("--clock", help="Pinned clock of the --world-seed worlds, ISO 8601.")
    ] = DEFAULT_CLOCK,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the report as JSON here.")
    ] = None,
) -> None:
    """Re-derive every task's outcome from its world and the payer rules alone and list each
    answer key that disagrees, with the rule that decides; or, with --world-seed, derive every
    referral, claim and order of fresh worlds and list each the rules cannot decide or that
    breaks a rule. Non-zero exit on any finding."""
    if (path is None) == (not world_seed):
        raise EndstateError("corpus audit: give either a corpus PATH or --world-seed")
    if world_seed:
        try:
            datetime.fromisoformat(clock)
        except ValueError:
            raise EndstateError(
                f"corpus audit: --clock {clock!r} is not an ISO 8601 time"
            ) from None
        worlds = audit_worlds(list(world_seed), clock)
        findings, summary, data = worlds.findings, worlds_summary(worlds), worlds.model_dump()
    else:
        report = audit_corpus(named_corpus(path))  # type: ignore[arg-type]
        findings, summary = report.findings, report.summary()
        data = report.model_dump(mode="json") | {"by_kind": report.by_kind}
    if findings:
        Console(width=max(out.width, 132), markup=False).print(_audit_table(findings))
    out.print(summary, highlight=False)
    if json_out is not None:
        data = data | {"ok": not findings}
        json_out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    if findings:
        raise typer.Exit(1)


def _audit_table(findings: list[Finding]) -> Table:
    table = Table(title="Answer keys the rules do not confirm", title_justify="left")
    for col in ("task", "record", "field", "kind"):
        table.add_column(col, no_wrap=True)
    for col in ("key", "audit", "rule / why"):
        table.add_column(col, overflow="fold")
    for f in findings:
        why = "; ".join(part for part in (f.detail, f.rule) if part)
        shown = f.kind in ("disagreement", "not-derivable", "end-state", "breach")
        table.add_row(
            f.task_id,
            f.record,
            f.field,
            f.kind,
            _cell(f.claimed) if shown else "",
            _cell(f.derived) if shown else "",
            why,
        )
    return table


def _cell(value: object) -> str:
    if value is None:
        return "null"
    return value if isinstance(value, str) else json.dumps(value)


@corpus_app.command("show")
def corpus_show(
    path: Annotated[Path, typer.Argument(help="A corpus directory.")],
    task_id: Annotated[str, typer.Argument(help="Task id.")],
    projection: Annotated[
        bool, typer.Option("--projection", help="Show exactly what an agent would receive.")
    ] = False,
    run_id: Annotated[
        str, typer.Option("--run-id", help="Episode id for the start URL.")
    ] = "preview",
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="Environment origin for the start URL.")
    ] = None,
) -> None:
    """Print a task (public and grading sides), or its projection after strict verification."""
    task = load_corpus(path).task(task_id)
    if not projection:
        print(task.model_dump_json(indent=2))
        return
    binding = firewall.EpisodeBinding(run_id=run_id, base_url=base_url)
    verdict = firewall.verify(task, binding=binding)
    if verdict.status == "blocked":
        raise EndstateError(f"{task.source}: blocked by the firewall: {verdict.reason}")
    print(json.dumps(firewall.project(task, binding).model_dump(), indent=2, ensure_ascii=False))

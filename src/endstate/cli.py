"""The `endstate` command line."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from endstate import firewall
from endstate.build import build_info
from endstate.builtin.cli import corpus_extra_app
from endstate.cli_judge import (
    DEFAULT_JUDGE_CACHE,
    JudgeBaseUrl,
    JudgeBudget,
    JudgeCache,
    JudgeK,
    JudgeKeepTrying,
    JudgeModel,
    JudgeRejudge,
    JudgeRequest,
    JudgeTimeout,
    exit_if_graded_nothing,
)
from endstate.console import err, labelled, out
from endstate.corpus import lock as corpus_lock
from endstate.corpus.loader import load_corpus, read_tasks
from endstate.corpus.problems import errors, warnings
from endstate.corpus.stats import corpus_stats
from endstate.envs.cli import env_app
from endstate.errors import EndstateError
from endstate.export.cli import export
from endstate.records import TaskRecord
from endstate.redteam.cli import redteam
from endstate.regress.cli import baseline_app, compare_cmd, gate_cmd
from endstate.regress.gates import pin as pin_gates
from endstate.report.disclosure import offline_disclosure
from endstate.report.summary import summarize
from endstate.report.text import render_text, renderable
from endstate.runs.progress import RunProgress
from endstate.runs.settings import DEFAULT_JUDGE_URL
from endstate.scoring.offline import score_supplied
from endstate.scoring.states import shown

app = typer.Typer(
    name="endstate",
    help="Evaluate healthcare-operations agents from the environment's recorded end state.",
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help: no type tags such as <bool> or <list[str]>
    pretty_exceptions_enable=False,
    add_completion=False,
)
corpus_app = typer.Typer(
    help="Vendor, verify, lint, inspect and measure task corpora.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(corpus_app, name="corpus")
app.add_typer(env_app, name="env")
app.command("redteam")(redteam)
app.add_typer(baseline_app, name="baseline")
app.command("compare")(compare_cmd)
app.command("gate")(gate_cmd)
app.command("export")(export)
corpus_app.registered_commands.extend(corpus_extra_app.registered_commands)


# Judge options shared by `score` and `run`.


@corpus_app.command("import")
def corpus_import(
    src: Annotated[
        Path, typer.Argument(help="Task tree to vendor (family folders of task files).")
    ],
    name: Annotated[str, typer.Option("--name", help="Name of the vendored corpus.")],
    into: Annotated[Path, typer.Option("--into", help="Corpora directory.")] = Path("corpora"),
    force: Annotated[bool, typer.Option("--force", help="Replace an existing copy.")] = False,
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
    lock = corpus_lock.vendor(src, into / name, name, force=force)
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
        raise EndstateError(f"{path}: no task files found (expected FAMILY/TASK.json)")
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


@app.command("score")
def score(
    corpus: Annotated[Path, typer.Option("--corpus", help="Corpus directory.")],
    states: Annotated[Path, typer.Option("--states", help="Directory of state documents.")],
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write task records (JSONL).")
    ] = None,
    report_file: Annotated[
        Path | None, typer.Option("--report", help="Write the text report.")
    ] = None,
    html_file: Annotated[Path | None, typer.Option("--html", help="Write the HTML report.")] = None,
    pattern: Annotated[str, typer.Option("--pattern", help="Glob for state files.")] = "*.json",
    only_supplied: Annotated[
        bool,
        typer.Option(
            "--only-supplied",
            help="Score only tasks that have a state file (disclosed as a selection).",
        ),
    ] = False,
    judge_model: JudgeModel = None,
    judge_base_url: JudgeBaseUrl = DEFAULT_JUDGE_URL,
    judge_k: JudgeK = 3,
    judge_timeout: JudgeTimeout = 60.0,
    judge_cache: JudgeCache = DEFAULT_JUDGE_CACHE,
    judge_budget: JudgeBudget = None,
    judge_rejudge: JudgeRejudge = 0,
    judge_keep_trying: JudgeKeepTrying = False,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Parallel judge workers.")] = 8,
) -> None:
    """Score a directory of recorded end states into task records and print the report.

    The judge's API key is read from $ENDSTATE_JUDGE_API_KEY (or $OPENAI_API_KEY).
    """
    loaded = load_corpus(corpus)
    judge = JudgeRequest(
        judge_model,
        judge_base_url,
        judge_k,
        judge_timeout,
        judge_cache,
        judge_budget,
        judge_rejudge,
        judge_keep_trying,
    ).make()
    with Progress(
        TextColumn("scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as progress:
        bar = progress.add_task("scoring", total=None)

        def tick(_: TaskRecord) -> None:
            progress.advance(bar)

        result = score_supplied(
            loaded,
            states,
            pattern,
            judge,
            only_supplied=only_supplied,
            workers=workers,
            on_record=tick,
        )
    summary = summarize(result.records)
    disclosure = offline_disclosure(
        loaded,
        result.records,
        summary,
        states,
        build_info(),
        judge.identity if judge else None,
        only_supplied,
        result.unknown_files,
    )
    for path in result.unknown_files:
        err.print(
            labelled(
                "warning", "yellow", f"{shown(path)}: matches no task in {corpus}; not scored"
            ),
            highlight=False,
            soft_wrap=True,
        )
    for record in result.records:
        if record.status == "unmeasurable" and record.state_source:
            err.print(labelled("unmeasurable", "yellow", record.error or ""), soft_wrap=True)
    if out_file:
        out_file.parent.mkdir(parents=True, exist_ok=True)
        out_file.write_text("".join(r.model_dump_json() + "\n" for r in result.records))
    title = f"endstate score — {loaded.name} — offline scoring of supplied states"
    if report_file:
        report_file.parent.mkdir(parents=True, exist_ok=True)
        report_file.write_text(render_text(summary, disclosure, title))
    if html_file:
        from endstate.report.html import render_html

        html_file.parent.mkdir(parents=True, exist_ok=True)
        html_file.write_text(render_html(summary, disclosure, title, result.records))
    out.print(renderable(summary, disclosure, title), crop=False)  # never cut a disclosure
    exit_if_graded_nothing(judge, summary)


@app.command("run")
def run(
    corpus: Annotated[
        Path | None,
        typer.Option("--corpus", help="Corpus directory (default: the built-in corpus)."),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option("--agent", help="null (default) | replay:FILE | command:CMD | llm:MODEL"),
    ] = None,
    env: Annotated[str, typer.Option("--env", help="Environment.")] = "embedded",
    attempts: Annotated[
        int | None, typer.Option("--attempts", min=1, help="Attempts per task (default 1).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, help="Parallel attempts (default 2).")
    ] = None,
    max_steps: Annotated[
        int | None,
        typer.Option("--max-steps", min=1, help="Actions a built-in agent may take (default 50)."),
    ] = None,
    time_limit: Annotated[
        float | None,
        typer.Option("--time-limit", min=1, help="Seconds per attempt (default 300)."),
    ] = None,
    tasks: Annotated[
        str | None, typer.Option("--tasks", help="Task id glob(s), comma-separated.")
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="Directory for run directories.")] = Path(
        "runs"
    ),
    resume: Annotated[
        Path | None,
        typer.Option("--resume", help="Continue a stopped run, with its own settings."),
    ] = None,
    pin: Annotated[
        Path | None,
        typer.Option("--pin", help="Refuse to start unless this manifest's pins match."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Run seed; episode seeds follow (default 0).")
    ] = None,
    world_seed: Annotated[
        int | None, typer.Option("--world-seed", help="Embedded world seed.")
    ] = None,
    agent_base_url: Annotated[
        str | None, typer.Option("--agent-base-url", help="OpenAI-compatible endpoint (llm).")
    ] = None,
    prompt_mode: Annotated[
        str | None, typer.Option("--prompt-mode", help="llm prompt: task (default) | task+guidance")
    ] = None,
    agent_env: Annotated[
        list[str] | None,
        typer.Option(
            "--agent-env", metavar="NAME", help="Environment variable passed to a command agent."
        ),
    ] = None,
    isolation: Annotated[
        str | None,
        typer.Option(
            "--isolation",
            help="command agents: sandbox (default) or none (unsandboxed; reports say so).",
        ),
    ] = None,
    agent_mount: Annotated[
        list[Path] | None,
        typer.Option(
            "--agent-mount",
            metavar="DIR",
            help="Folder a sandboxed command agent may read (default: its program's folder).",
        ),
    ] = None,
    agent_egress: Annotated[
        list[str] | None,
        typer.Option(
            "--agent-egress",
            metavar="HOST:PORT",
            help="HOST:PORT a sandboxed command agent may reach (e.g. its model's API).",
        ),
    ] = None,
    judge_model: JudgeModel = None,
    judge_base_url: Annotated[
        str | None, typer.Option("--judge-base-url", help="OpenAI-compatible endpoint.")
    ] = None,
    judge_k: Annotated[
        int | None, typer.Option("--judge-k", min=1, help="Judge calls per check (default 3).")
    ] = None,
    judge_timeout: JudgeTimeout = 60.0,
    judge_cache: JudgeCache = DEFAULT_JUDGE_CACHE,
    judge_budget: JudgeBudget = None,
    judge_rejudge: JudgeRejudge = 0,
    judge_keep_trying: JudgeKeepTrying = False,
    gates: Annotated[
        Path | None,
        typer.Option(
            "--gates",
            metavar="FILE",
            help="Release gates (YAML) pinned before the first attempt; see `endstate gate`.",
        ),
    ] = None,
) -> None:
    """Evaluate an agent end to end: fresh episode per attempt, end state read back and scored."""
    import asyncio

    from endstate.agents.registry import AgentOptions, make_agent
    from endstate.runs.session import RunOptions, execute
    from endstate.runs.settings import RunSettings, settle
    from endstate.runs.store import RunStore

    given = RunSettings(
        corpus=corpus,
        agent=agent,
        attempts=attempts,
        workers=workers,
        max_steps=max_steps,
        time_limit=time_limit,
        tasks=tasks,
        seed=seed,
        world_seed=world_seed,
        agent_base_url=agent_base_url,
        prompt_mode=prompt_mode,
        agent_env=tuple(agent_env) if agent_env else None,
        isolation=isolation,
        agent_mount=tuple(agent_mount) if agent_mount else None,
        agent_egress=tuple(agent_egress) if agent_egress else None,
        judge_model=judge_model,
        judge_base_url=judge_base_url,
        judge_k=judge_k,
    )
    s = settle(given, RunStore(resume).read_manifest() if resume else None)
    if s.prompt_mode not in ("task", "task+guidance"):
        raise EndstateError(f"--prompt-mode {s.prompt_mode!r}: expected task or task+guidance")
    assert s.agent is not None and s.max_steps is not None and s.judge_base_url is not None
    made = make_agent(
        s.agent,
        AgentOptions(
            base_url=s.agent_base_url,
            prompt_mode=s.prompt_mode,
            max_steps=s.max_steps,
            pass_env=s.agent_env or (),
            isolation=s.isolation or "sandbox",
            mounts=s.agent_mount or (),
            egress=s.agent_egress or (),
        ),
    )
    judge = JudgeRequest(
        s.judge_model,
        s.judge_base_url,
        s.judge_k or 3,
        judge_timeout,
        judge_cache,
        judge_budget,
        judge_rejudge,
        judge_keep_trying,
    ).make()
    bar = RunProgress(console=err)
    chosen = s.corpus
    if chosen is None:
        from endstate.builtin import builtin_corpus_path

        chosen = builtin_corpus_path()
    where: list[Path] = []
    options = RunOptions(
        corpus=chosen,
        agent=made,
        agent_spec=s.agent,
        env=env,
        attempts=s.attempts or 1,
        workers=s.workers or 2,
        max_steps=s.max_steps,
        time_limit=s.time_limit or 300.0,
        judge=judge,
        out=out,
        resume=resume,
        tasks=s.tasks,
        pin=pin,
        seed=s.seed or 0,
        world_seed=s.world_seed,
        on_record=bar.record,
        on_start=bar.start,
        on_store=where.append,
        gates=pin_gates(gates) if gates else None,
    )
    try:
        result = asyncio.run(execute(options))
    except KeyboardInterrupt:
        bar.stop()
        # Plain lines, never wrapped: the command is meant to be copied.
        if where:
            sys.stderr.write(
                f"\ninterrupted: run directory {where[0]}\n"
                f"its report counts what is missing as unmeasurable: endstate report {where[0]}\n"
                f"resume with: endstate run --resume {where[0]}\n"
            )
        else:
            sys.stderr.write("\ninterrupted before the run started: nothing was recorded\n")
        raise typer.Exit(130) from None
    finally:
        bar.stop()
    sys.stdout.write(result.report)
    sys.stdout.write(f"\nrun directory: {result.store.root}\n")
    exit_if_graded_nothing(judge, result.summary)


@app.command("record")
def record_cmd(
    corpus: Annotated[Path, typer.Option("--corpus", help="Corpus directory.")],
    task_id: Annotated[str, typer.Option("--task", help="Task to record a trajectory for.")],
    out: Annotated[Path, typer.Option("--out", help="Trajectory file to write.")],
    actions: Annotated[
        Path | None,
        typer.Option("--actions", help="JSON-lines file of actions (default: read stdin)."),
    ] = None,
    headed: Annotated[bool, typer.Option("--headed", help="Show the browser window.")] = False,
    world_seed: Annotated[int | None, typer.Option("--world-seed")] = None,
) -> None:
    """Record a replay trajectory by performing actions on a fresh embedded episode."""
    import asyncio

    from endstate.runs.record import record

    task = load_corpus(corpus).task(task_id)

    def say(line: str) -> None:
        err.print(line, highlight=False)

    if actions is not None:
        with actions.open() as stream:
            kept = asyncio.run(record(task, stream, out, say, headed, world_seed))
    else:
        kept = asyncio.run(record(task, sys.stdin, out, say, headed, world_seed))
    sys.stdout.write(f"wrote {out} ({kept} actions)\n")


@app.command("report")
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.", metavar="RUN_DIR")],
) -> None:
    """Reprint a run's report from its records."""
    from endstate.runs.session import render
    from endstate.runs.store import RunStore

    store = RunStore(run_dir)
    *_, text = render(store, store.read_manifest())
    sys.stdout.write(text)


def main() -> None:
    """Entry point: bad input ends in one clear line and a non-zero exit, never a traceback."""
    for stream in (sys.stdout, sys.stderr):  # a name or value that is not valid Unicode
        if isinstance(stream, io.TextIOWrapper):  # prints escaped rather than raising
            stream.reconfigure(errors="backslashreplace")
    try:
        app()
    except EndstateError as exc:
        err.print(labelled("error:", "red", str(exc)), highlight=False, soft_wrap=True)
        sys.exit(1)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        reason = f"{where}{exc.strerror or exc}"
        err.print(labelled("error:", "red", reason), highlight=False, soft_wrap=True)
        sys.exit(1)


if __name__ == "__main__":
    main()

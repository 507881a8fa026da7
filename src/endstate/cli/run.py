"""`endstate run`, `record` and `report`: evaluate an agent end to end, and read runs back."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from endstate.cli.console import err
from endstate.cli.judge import (
    DEFAULT_JUDGE_CACHE,
    JudgeBudget,
    JudgeCache,
    JudgeKeepTrying,
    JudgeModel,
    JudgeRejudge,
    JudgeRequest,
    JudgeTimeout,
    exit_if_graded_nothing,
)
from endstate.corpus.loader import load_corpus
from endstate.errors import EndstateError
from endstate.regress.gates import pin as pin_gates
from endstate.runs.progress import RunProgress


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


def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.", metavar="RUN_DIR")],
) -> None:
    """Reprint a run's report from its records."""
    from endstate.runs.session import render
    from endstate.runs.store import RunStore

    store = RunStore(run_dir)
    *_, text = render(store, store.read_manifest())
    sys.stdout.write(text)

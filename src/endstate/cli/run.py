"""`endstate run`, `record` and `report`: evaluate an agent end to end, and read runs back."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from endstate.agents.options import assignments
from endstate.cli.console import err
from endstate.cli.extra_flags import (
    agent_options_given,
    drop_inapplicable_aliases,
    executor_options_given,
    read_extra,
    system_options_given,
)
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
from endstate.cli.run_options import (
    AgentOption,
    AgentSpec,
    AllowAgentWritableState,
    Attempts,
    Contamination,
    Corpus,
    EnvName,
    Executor,
    ExecutorOption,
    Gates,
    MaxSteps,
    Out,
    Pin,
    Prices,
    Resume,
    RunJudgeBaseUrl,
    RunJudgeK,
    Seed,
    SystemOption,
    Tasks,
    TimeLimit,
    Workers,
    WorldSeed,
)
from endstate.corpus.loader import load_corpus
from endstate.errors import EndstateError
from endstate.regress.gates import pin as pin_gates
from endstate.runs.progress import RunProgress

if TYPE_CHECKING:
    from endstate.runs.session import RunOptions, RunResult
    from endstate.runs.settings import RunSettings
    from endstate.scoring.judge import Judge


def run(
    ctx: typer.Context,
    corpus: Corpus = None,
    agent: AgentSpec = None,
    agent_option: AgentOption = None,
    env: EnvName = None,
    allow_agent_writable_state: AllowAgentWritableState = False,
    attempts: Attempts = None,
    workers: Workers = None,
    max_steps: MaxSteps = None,
    time_limit: TimeLimit = None,
    tasks: Tasks = None,
    out: Out = Path("runs"),
    resume: Resume = None,
    pin: Pin = None,
    seed: Seed = None,
    world_seed: WorldSeed = None,
    judge_model: JudgeModel = None,
    judge_base_url: RunJudgeBaseUrl = None,
    judge_k: RunJudgeK = None,
    judge_timeout: JudgeTimeout = 60.0,
    judge_cache: JudgeCache = DEFAULT_JUDGE_CACHE,
    judge_budget: JudgeBudget = None,
    judge_rejudge: JudgeRejudge = 0,
    judge_keep_trying: JudgeKeepTrying = False,
    gates: Gates = None,
    contamination: Contamination = None,
    system_option: SystemOption = None,
    prices: Prices = None,
    executor: Executor = None,
    executor_option: ExecutorOption = None,
) -> None:
    """Evaluate an agent end to end: fresh episode per attempt, end state read back and scored."""
    from endstate.runs.executors import choose_executor
    from endstate.runs.settings import RunSettings, settle
    from endstate.runs.store import RunStore

    extra = read_extra(ctx.args)
    # Where attempts run is checked first, and is not a setting of the run (not a pin).
    ray = executor_options_given(executor_option or [], extra)
    chosen = choose_executor(
        executor,
        ray.get("address"),
        _number(ray, "cpus_per_worker"),
        _number(ray, "memory_per_worker_gb"),
        ray["worker_env"],
    )

    given = RunSettings(
        corpus=corpus,
        env=env,
        allow_agent_writable_state=True if allow_agent_writable_state else None,
        agent=agent,
        attempts=attempts,
        workers=workers,
        max_steps=max_steps,
        time_limit=time_limit,
        tasks=tasks,
        seed=seed,
        world_seed=world_seed,
        agent_options=agent_options_given(agent_option or [], extra),
        judge_model=judge_model,
        judge_base_url=judge_base_url,
        judge_k=judge_k,
        system_options=system_options_given(system_option or [], extra),
        prices=prices,
    )
    s = settle(given, RunStore(resume).read_manifest() if resume else None)
    assert s.judge_base_url is not None
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
    where: list[Path] = []
    # An older per-option flag given for a kind without that option is a note, not an error
    # (scripts pass them to every agent); `--agent-option` itself is held to the kind's model.
    lenient = {k for k, _ in extra.agent} - {k for k, _ in assignments(agent_option or [])}
    options = _run_options(s, out, resume, pin, judge, gates, bar, where, lenient)
    options.contamination = contamination
    options.executor = chosen
    result = _execute(options, bar, where)
    sys.stdout.write(result.report)
    sys.stdout.write(f"\nrun directory: {result.store.root}\n")
    exit_if_graded_nothing(judge, result.summary)
    exit_if_model_answered_nothing(result)


def _number(options: dict[str, object], key: str) -> float | None:
    """An executor option that must be a positive number, refused in one line otherwise."""
    text = options.get(key)
    if text is None:
        return None
    try:
        value = float(str(text))
    except ValueError:
        value = 0.0
    if not value >= 0.1:
        raise EndstateError(f"--executor-option {key}={text!r}: expected a number of at least 0.1")
    return value


MODEL_ANSWERED_NOTHING = 4  # exit status: the agent's model endpoint lost every attempt


def exit_if_model_answered_nothing(result: RunResult) -> None:
    """Exit non-zero when not one attempt heard from the agent's model: nothing was measured."""
    loss = result.summary.model_loss
    if loss is None or loss.attempts < loss.total:
        return
    err.print(
        Text.assemble(
            ("error: ", "red"),
            f"the agent's model endpoint lost all {loss.total} attempts ({loss.cause}); "
            "records and report were written, every attempt is unmeasurable",
        ),
        soft_wrap=True,
    )
    raise typer.Exit(MODEL_ANSWERED_NOTHING)


def _run_options(
    s: RunSettings,
    out: Path,
    resume: Path | None,
    pin: Path | None,
    judge: Judge | None,
    gates: Path | None,
    bar: RunProgress,
    where: list[Path],
    lenient: set[str],
) -> RunOptions:
    """The settled settings as a run: the agent made, the corpus chosen, the gates pinned."""
    from endstate.agents.registry import agent_options, kind_of, make_agent
    from endstate.envs.suite.system_options import validate_systems
    from endstate.runs.prices import load_prices
    from endstate.runs.session import RunOptions

    assert s.agent is not None and s.max_steps is not None
    given = dict(s.agent_options or {})
    kind, _ = kind_of(s.agent)
    given, notes = drop_inapplicable_aliases(given, lenient, kind.name, kind.options)
    for note in notes:
        err.print(f"note: {note}")
    if "max_steps" in kind.options.model_fields:  # --max-steps, unless the option says
        given.setdefault("max_steps", s.max_steps)
    options = agent_options(s.agent, given)
    made = make_agent(s.agent, options)
    from endstate.builtin import builtin_corpus_path, named_corpus

    chosen = builtin_corpus_path() if s.corpus is None else named_corpus(s.corpus)
    return RunOptions(
        corpus=chosen,
        agent=made,
        agent_spec=s.agent,
        env=s.env,
        allow_agent_writable_state=bool(s.allow_agent_writable_state),
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
        system_options=validate_systems(s.system_options or {}),
        prices=load_prices(s.prices) if s.prices else None,
        agent_options=options,
    )


def _execute(options: RunOptions, bar: RunProgress, where: list[Path]) -> RunResult:
    """Run it; Ctrl-C ends with where the run is and how to resume it (exit 130)."""
    import asyncio

    from endstate.runs.session import execute

    try:
        return asyncio.run(execute(options))
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

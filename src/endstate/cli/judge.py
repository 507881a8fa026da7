"""The judge's command-line options, shared by `score` and `run`, and how a failing judge
is reported: at once on stderr, and in the exit status when it graded nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from endstate.cli.console import err
from endstate.report.summary import Summary
from endstate.scoring.judge import DEFAULT_KEY_ENV, Judge, JudgeConfig

JudgeModel = Annotated[str | None, typer.Option("--judge-model", help="Judge model name.")]
JudgeBaseUrl = Annotated[str, typer.Option("--judge-base-url", help="OpenAI-compatible endpoint.")]
JudgeK = Annotated[int, typer.Option("--judge-k", min=1, help="Judge calls per check.")]
JudgeTimeout = Annotated[float, typer.Option("--judge-timeout", help="Seconds per call.")]
JudgeCache = Annotated[Path, typer.Option("--judge-cache", help="SQLite file of cached verdicts.")]
JudgeBudget = Annotated[
    float | None,
    typer.Option(
        "--judge-budget",
        min=0,
        metavar="SECONDS",
        help="Wall-clock seconds of judge calls per run; then rubric checks stay ungraded.",
    ),
]
JudgeRejudge = Annotated[
    int,
    typer.Option(
        "--judge-rejudge",
        min=0,
        metavar="N",
        help="Re-judge N verdicts with fresh calls (cache bypassed) to measure the flip rate.",
    ),
]
JudgeKeepTrying = Annotated[
    bool,
    typer.Option(
        "--judge-keep-trying",
        help="Keep asking a judge that failed the same way 3 times in a row.",
    ),
]
DEFAULT_JUDGE_CACHE = Path(".endstate/judge-cache.sqlite")
JUDGE_GRADED_NOTHING = 3  # exit status: a configured judge graded no rubric check


@dataclass(frozen=True)
class JudgeRequest:
    """The judge options a command was given; how to reach the judge and how far to trust it."""

    model: str | None
    base_url: str
    k: int
    timeout: float
    cache: Path
    budget: float | None = None
    rejudge: int = 0
    keep_trying: bool = False

    def make(self) -> Judge | None:
        if not self.model:
            return None
        config = JudgeConfig(
            model=self.model,
            base_url=self.base_url,
            k=self.k,
            timeout=self.timeout,
            api_key_env=DEFAULT_KEY_ENV,
            cache_path=self.cache,
            budget=self.budget,
            rejudge=self.rejudge,
            give_up_after=0 if self.keep_trying else 3,
        )
        return Judge(config, on_problem=say_problem)


def say_problem(reason: str) -> None:
    """A judge failing is news at once, not at the end of a long run (once per kind)."""
    err.print(Text.assemble(("judge: ", "yellow"), reason), soft_wrap=True)


def exit_if_graded_nothing(judge: Judge | None, summary: Summary) -> None:
    """Exit non-zero when a configured judge was asked and graded not one rubric check."""
    stats = summary.judge
    if judge is None or stats is None or stats.graded:
        return
    top = next(iter(stats.ungraded_reasons), "no reason recorded")
    err.print(
        Text.assemble(
            ("error: ", "red"),
            f"the judge graded none of {stats.verdicts} rubric checks ({top}); "
            "records and report were written, their tasks are flagged",
        ),
        soft_wrap=True,
    )
    raise typer.Exit(JUDGE_GRADED_NOTHING)

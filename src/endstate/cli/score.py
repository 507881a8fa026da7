"""`endstate score`: recorded end states scored offline into records and a report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from endstate.build import build_info
from endstate.cli.console import err, labelled, out
from endstate.cli.judge import (
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
from endstate.corpus.loader import Corpus, load_corpus
from endstate.records import TaskRecord
from endstate.report.disclosure import offline_disclosure
from endstate.report.summary import summarize
from endstate.report.text import render_text, renderable
from endstate.runs.settings import DEFAULT_JUDGE_URL
from endstate.scoring.check_kinds import require_scorable
from endstate.scoring.offline import OfflineScoring, score_supplied
from endstate.scoring.states import shown

if TYPE_CHECKING:
    from endstate.scoring.judge import Judge


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
    answers: Annotated[
        Path | None,
        typer.Option(
            "--answers",
            help="Directory of final messages (<task-id>[.<attempt>].txt) for tasks graded on "
            "a JSON answer (patient errands).",
        ),
    ] = None,
) -> None:
    """Score a directory of recorded end states into task records and print the report.

    The judge's API key is read from $ENDSTATE_JUDGE_API_KEY (or $OPENAI_API_KEY).
    """
    loaded = load_corpus(corpus)
    require_scorable(loaded.tasks)
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
    result = _score_with_progress(loaded, states, pattern, judge, only_supplied, workers, answers)
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
        answers,
    )
    _say_what_was_not_scored(result, corpus)
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


def _score_with_progress(
    corpus: Corpus,
    states: Path,
    pattern: str,
    judge: Judge | None,
    only_supplied: bool,
    workers: int,
    answers: Path | None,
) -> OfflineScoring:
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

        return score_supplied(
            corpus,
            states,
            pattern,
            judge,
            only_supplied=only_supplied,
            workers=workers,
            on_record=tick,
            answers_dir=answers,
        )


def _say_what_was_not_scored(result: OfflineScoring, corpus: Path) -> None:
    """One line per state file that matched no task, and per state that could not be read."""
    for path in [*result.unknown_files, *result.unknown_answers]:
        err.print(
            labelled("warning", "yellow", f"{shown(path)}: matches no task in {corpus}; skipped"),
            highlight=False,
            soft_wrap=True,
        )
    for record in result.records:
        if record.status == "unmeasurable" and record.state_source:
            err.print(labelled("unmeasurable", "yellow", record.error or ""), soft_wrap=True)

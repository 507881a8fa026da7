"""The rubric judge, through the real OpenAI client against a local chat-completions server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import jmespath_check, judge_check, task_doc
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import Task
from endstate.scoring.judge import Judge, JudgeConfig, RubricInput, parse_grade
from endstate.scoring.task_score import score_task
from openai_double import Behaviour, ChatDouble

PASS = Behaviour(reply='{"grade": 1, "reason": "says no auth needed"}')
FAIL = Behaviour(reply='{"grade": 0, "reason": "does not"}')
STATE = {"done": True, "note": "No prior authorization required: Medicare Advantage plan."}


@pytest.fixture
def chat() -> Iterator[ChatDouble]:
    double = ChatDouble().start()
    yield double
    double.stop()


@pytest.fixture
def task(make_corpus: Callable[..., Path]) -> Task:
    root = make_corpus(
        {"prior_auth/t.json": task_doc("t", [jmespath_check("done"), judge_check("{{ note }}", 2)])}
    )
    return load_corpus(root).tasks[0]


def make_judge(chat: ChatDouble, tmp_path: Path, **kw: object) -> Judge:
    config = JudgeConfig(
        model="grader-1",
        base_url=chat.base_url,
        cache_path=kw.pop("cache_path", None),  # type: ignore[arg-type]
        max_retries=0,
        **kw,  # type: ignore[arg-type]
    )
    return Judge(config)


def test_pass_gives_full_rubric_points(chat: ChatDouble, task: Task, tmp_path: Path) -> None:
    chat.queue(PASS, PASS, PASS)
    record = score_task(task, STATE, judge=make_judge(chat, tmp_path))
    assert record.status == "passed" and record.score == 1.0
    judged = record.checks[1]
    assert judged.votes == [1, 1, 1] and judged.outcome == "pass"
    assert record.judge is not None and record.judge.model == "grader-1" and record.judge.k == 3
    sent = chat.requests[0]
    assert sent["model"] == "grader-1"
    assert STATE["note"] in sent["messages"][1]["content"]
    assert "Medicare" in sent["messages"][1]["content"]


def test_fail_gives_zero(chat: ChatDouble, task: Task, tmp_path: Path) -> None:
    chat.queue(FAIL, FAIL, FAIL)
    record = score_task(task, STATE, judge=make_judge(chat, tmp_path))
    assert record.checks[1].outcome == "fail" and record.earned == 1 and record.status == "failed"
    assert not record.flagged


@pytest.mark.parametrize(("votes", "outcome"), [((1, 0, 1), "pass"), ((0, 1, 0), "fail")])
def test_strict_majority_of_three(
    votes: tuple[int, ...], outcome: str, chat: ChatDouble, task: Task, tmp_path: Path
) -> None:
    chat.queue(*(PASS if v else FAIL for v in votes))
    record = score_task(task, STATE, judge=make_judge(chat, tmp_path))
    assert record.checks[1].votes == list(votes)
    assert record.checks[1].outcome == outcome
    assert len(chat.requests) == 3


def test_http_500_leaves_the_check_ungraded(chat: ChatDouble, task: Task, tmp_path: Path) -> None:
    chat.queue(PASS, Behaviour(status=500))
    record = score_task(task, STATE, judge=make_judge(chat, tmp_path))
    judged = record.checks[1]
    assert judged.outcome == "ungraded" and "HTTP 500" in judged.detail
    assert record.flagged and record.status == "failed"
    assert record.weight == 3 and record.ungraded_points == 2


def test_timeout_leaves_the_check_ungraded(chat: ChatDouble, task: Task, tmp_path: Path) -> None:
    chat.queue(Behaviour(reply='{"grade": 1}', delay=2.0))
    record = score_task(task, STATE, judge=make_judge(chat, tmp_path, timeout=0.3))
    assert record.checks[1].outcome == "ungraded"
    assert "timed out" in record.checks[1].detail
    assert not record.passed


@pytest.mark.parametrize(
    "garbage",
    ["Yes, it passes.", '{"grade": "maybe"}', '{"verdict": 1}', "[1]", "", '{"grade": 0.5}'],
)
def test_unparseable_reply_leaves_the_check_ungraded(
    garbage: str, chat: ChatDouble, task: Task, tmp_path: Path
) -> None:
    chat.queue(Behaviour(reply=garbage))
    record = score_task(task, STATE, judge=make_judge(chat, tmp_path))
    assert record.checks[1].outcome == "ungraded"
    assert record.flagged and not record.passed


def test_cache_hit_makes_no_call_and_is_keyed_by_identity(
    chat: ChatDouble, task: Task, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    chat.queue(PASS, FAIL, PASS)
    first = score_task(task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache))
    assert len(chat.requests) == 3 and not first.checks[1].cached
    again = score_task(task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache))
    assert len(chat.requests) == 3
    assert again.checks[1].cached and again.checks[1].votes == [1, 0, 1]
    other_input = score_task(
        task,
        {**STATE, "note": "Auth required."},
        judge=make_judge(chat, tmp_path, cache_path=cache),
    )
    assert len(chat.requests) == 6 and not other_input.checks[1].cached
    other_judge = score_task(task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache, k=1))
    assert len(chat.requests) == 7 and not other_judge.checks[1].cached


def test_errors_are_never_cached(chat: ChatDouble, task: Task, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    chat.queue(Behaviour(status=500))
    assert score_task(task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache)).flagged
    chat.queue(PASS, PASS, PASS)
    assert score_task(task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache)).passed


def test_parse_grade_accepts_fenced_json_and_score_key() -> None:
    assert parse_grade('```json\n{"grade": 1, "reason": "x"}\n```') == 1
    assert parse_grade('{"score": 0.0}') == 0
    assert parse_grade('{"grade": true}') == 1


def test_rubric_input_puts_answer_between_markers() -> None:
    text = RubricInput(description="d", context="c", answer="the note", rubric="r").user_message()
    assert "<<<\nthe note\n>>>" in text

"""A misbehaving judge never breaks a run: every fault leaves its check ungraded, with the reason.

The judge is a local server speaking the chat-completions API (tests/openai_double.py), so the
real openai client and its HTTP stack run; each test scripts what a broken endpoint sends.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import judge_check, task_doc
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import Task
from endstate.report.disclosure import judge_text
from endstate.report.summary import summarize
from endstate.report.text import judge_line
from endstate.scoring.judge import Judge, JudgeConfig, parse_grade
from endstate.scoring.task_score import score_task
from openai_double import Behaviour, ChatDouble
from test_cli import ENDSTATE

STATE = {"done": True, "note": "No prior authorization required: Medicare Advantage plan."}
PASS = Behaviour(reply='{"grade": 1, "reason": "says no auth needed"}')
FAIL = Behaviour(reply='{"grade": 0, "reason": "does not"}')


def judge_for(chat: ChatDouble, **kw: object) -> Judge:
    options: dict[str, object] = {"k": 1, "max_retries": 0, **kw}
    return Judge(JudgeConfig(model="grader-1", base_url=chat.base_url, **options))  # type: ignore[arg-type]


def completion(content: object) -> bytes:
    return json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 1,
            "model": "grader-1",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        }
    ).encode()


MALFORMED = {
    "invalid JSON body": Behaviour(raw=b'{"choices": [ {"mess'),
    "text/plain body": Behaviour(raw=b"grade: 1", content_type="text/plain"),
    "top-level array": Behaviour(raw=b'[{"grade": 1}]'),
    "empty object": Behaviour(raw=b"{}"),
    "choices empty": Behaviour(raw=b'{"choices": []}'),
    "choice without message": Behaviour(raw=b'{"choices": [{"index": 0}]}'),
    "message null": Behaviour(raw=b'{"choices": [{"index": 0, "message": null}]}'),
    "content a number": Behaviour(content=1),
    "content a list": Behaviour(content=[{"type": "text", "text": '{"grade": 1}'}]),
    "content an object": Behaviour(content={"grade": 1}),
    "content null": Behaviour(content=None),
    "content empty": Behaviour(reply="   "),
    "reply not JSON": Behaviour(reply="PASS"),
    "reply a JSON array": Behaviour(reply="[1]"),
    "reply without grade": Behaviour(reply='{"reason": "fine"}'),
    "grade out of range": Behaviour(reply='{"grade": 2}'),
    "grade a string": Behaviour(reply='{"grade": "1"}'),
    "grade NaN": Behaviour(reply='{"grade": NaN}'),
    "deeply nested reply": Behaviour(reply="[" * 100_000 + "]" * 100_000),
    "grade and score disagree": Behaviour(reply='{"grade": 1, "score": 0}'),
    "grade 1, reason FAIL": Behaviour(reply='{"grade": 1, "reason": "FAIL: no note"}'),
    "grade 0, reason PASS": Behaviour(reply='{"grade": 0, "reason": "Passed: it does"}'),
    "reason not text": Behaviour(reply='{"grade": 1, "reason": 5}'),
    "body not UTF-8": Behaviour(raw=b"\xff\xfe\x00garbage"),
    "HTTP 200, empty body": Behaviour(raw=b""),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_reply_leaves_the_check_ungraded(
    name: str, chat: ChatDouble, rubric_task: Task
) -> None:
    chat.queue(MALFORMED[name])
    record = score_task(rubric_task, STATE, judge=judge_for(chat))
    rubric = record.checks[1]
    assert rubric.outcome == "ungraded", rubric
    assert rubric.detail, "an ungraded check says why"
    assert record.status == "failed" and record.flagged
    assert record.checks[0].outcome == "pass"  # the deterministic check is unaffected


def test_the_reply_schema_accepts_what_it_documents() -> None:
    assert parse_grade('{"grade": 1, "reason": "the note says so"}') == 1
    assert parse_grade('{"grade": 0, "score": 0, "reason": "No authorization noted"}') == 0
    assert parse_grade('```json\n{"grade": true}\n```') == 1
    # A reason that merely starts with "No" is not a verdict word.
    assert parse_grade('{"grade": 1, "reason": "No authorization is needed, as stated"}') == 1


def test_a_trickling_judge_is_cut_at_the_per_call_limit(
    chat: ChatDouble, rubric_task: Task
) -> None:
    # Headers at once, then one byte every 50 ms: ~15 s for the whole body.
    chat.queue(Behaviour(reply='{"grade": 1, "reason": "' + "x" * 200 + '"}', trickle=0.05))
    began = time.monotonic()
    record = score_task(rubric_task, STATE, judge=judge_for(chat, timeout=1.0))
    took = time.monotonic() - began
    assert record.checks[1].outcome == "ungraded"
    assert "cut at its 1s limit" in record.checks[1].detail
    assert took < 6, f"a 1 s per-call limit held the check for {took:.1f} s"


def test_retries_of_a_slow_judge_stay_inside_the_check(chat: ChatDouble, rubric_task: Task) -> None:
    chat.default = Behaviour(reply='{"grade": 1}', delay=3.0)
    judge = judge_for(chat, timeout=0.5, max_retries=2, k=3)
    record = score_task(rubric_task, STATE, judge=judge)
    assert record.checks[1].outcome == "ungraded"
    assert len(chat.requests) == 3  # two retries for the whole check, not per call


def test_a_judge_budget_ends_the_judge_phase_and_says_so(
    chat: ChatDouble, make_corpus: Callable[..., Path]
) -> None:
    tasks = {
        f"prior_auth/t{i}.json": task_doc(f"t{i}", [judge_check("{{ note }}", 1)]) for i in range(6)
    }
    corpus = load_corpus(make_corpus(tasks))
    chat.default = Behaviour(reply='{"grade": 1}', delay=0.4)
    judge = judge_for(chat, budget=1.0)
    began = time.monotonic()
    records = [score_task(t, STATE, judge=judge) for t in corpus.tasks]
    took = time.monotonic() - began
    details = [r.checks[0].detail for r in records]
    assert [r.checks[0].outcome for r in records[:2]] == ["pass", "pass"]
    assert all("judge budget of 1s spent" in d for d in details[3:]), details
    assert took < 2.5, f"a 1 s budget let the judge phase run {took:.1f} s"
    text = judge_text(judge.identity, records)
    assert "judge budget of 1s spent" in text


def test_parallel_calls_are_not_counted_twice_against_the_budget(
    chat: ChatDouble, make_corpus: Callable[..., Path]
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    tasks = {f"prior_auth/t{i}.json": task_doc(f"t{i}", [judge_check()]) for i in range(4)}
    corpus = load_corpus(make_corpus(tasks))
    chat.default = Behaviour(reply='{"grade": 1}', delay=0.5)
    judge = judge_for(chat, budget=1.5)
    with ThreadPoolExecutor(4) as pool:
        records = list(pool.map(lambda t: score_task(t, STATE, judge=judge), corpus.tasks))
    # Four calls at once take 0.5 s of the judge's time, not 2 s: all fit in the budget.
    assert all(r.passed for r in records), [r.checks[0].detail for r in records]
    assert 0.4 < judge.spent < 1.4


def test_identical_failures_stop_the_asking_and_are_told_once(
    chat: ChatDouble, make_corpus: Callable[..., Path]
) -> None:
    tasks = {f"prior_auth/t{i}.json": task_doc(f"t{i}", [judge_check()]) for i in range(8)}
    corpus = load_corpus(make_corpus(tasks))
    chat.default = Behaviour(status=401)
    told: list[str] = []
    judge = Judge(
        JudgeConfig(model="m", base_url=chat.base_url, k=1, max_retries=0), on_problem=told.append
    )
    records = [score_task(t, STATE, judge=judge) for t in corpus.tasks]
    assert len(chat.requests) == 3
    assert told == ["judge endpoint returned HTTP 401"]
    assert all(r.checks[0].outcome == "ungraded" for r in records)
    assert "not asked again after 3 identical failures" in records[-1].checks[0].detail


def test_keep_trying_asks_for_every_check(
    chat: ChatDouble, make_corpus: Callable[..., Path]
) -> None:
    tasks = {f"prior_auth/t{i}.json": task_doc(f"t{i}", [judge_check()]) for i in range(5)}
    corpus = load_corpus(make_corpus(tasks))
    chat.default = Behaviour(status=401)
    judge = judge_for(chat, give_up_after=0)
    for t in corpus.tasks:
        score_task(t, STATE, judge=judge)
    assert len(chat.requests) == 5


def test_a_flipping_judge_shows_split_votes_and_flip_rate(
    chat: ChatDouble, make_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    tasks = {f"prior_auth/t{i}.json": task_doc(f"t{i}", [judge_check()]) for i in range(4)}
    corpus = load_corpus(make_corpus(tasks))
    # k = 3 per verdict; each verdict then re-judged with 3 fresh calls.
    for _ in range(2):
        chat.queue(PASS, PASS, FAIL)  # the verdict: split 2/3, a pass
        chat.queue(FAIL, FAIL, PASS)  # its re-judgement: a fail, so a flip
    for _ in range(2):
        chat.queue(PASS, FAIL, PASS)  # split, not re-judged: the sample is 2
    judge = judge_for(chat, k=3, rejudge=2, cache_path=tmp_path / "cache.sqlite")
    records = [
        score_task(t, {"note": f"No prior authorization required (case {i})"}, judge=judge)
        for i, t in enumerate(corpus.tasks)
    ]
    rubric = [r.checks[0] for r in records]
    assert [c.outcome for c in rubric] == ["pass"] * 4  # the first verdict is what counts
    assert [c.rejudge_votes for c in rubric] == [[0, 0, 1], [0, 0, 1], None, None]
    assert [c.flipped for c in rubric] == [True, True, None, None]
    summary = summarize(records)
    assert summary.judge is not None
    assert summary.judge.split == 4 and summary.judge.rejudged == 2
    assert summary.judge.flips == 2
    line = judge_line(summary.judge)
    assert "4 split" in line and "2 of 2 re-judged flipped (100%)" in line
    text = judge_text(judge.identity, records)
    assert "4 split votes" in text and "2 verdicts re-judged with fresh calls" in text


def test_rejudging_a_cached_verdict_calls_afresh_and_keeps_the_cache(
    chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    score_task(rubric_task, STATE, judge=judge_for(chat, cache_path=cache))  # fills the cache: pass
    chat.queue(FAIL)
    record = score_task(rubric_task, STATE, judge=judge_for(chat, cache_path=cache, rejudge=1))
    rubric = record.checks[1]
    assert rubric.cached and rubric.outcome == "pass"
    assert rubric.rejudge_votes == [0] and rubric.flipped is True
    replay = score_task(rubric_task, STATE, judge=judge_for(chat, cache_path=cache))
    assert replay.checks[1].cached and replay.checks[1].outcome == "pass"


# -- the command line -------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _score(
    corpus: Path, states: Path, tmp_path: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(ENDSTATE),
            "score",
            "--corpus",
            str(corpus),
            "--states",
            str(states),
            "--out",
            str(tmp_path / "records.jsonl"),
            "--report",
            str(tmp_path / "report.txt"),
            "--judge-model",
            "grader-1",
            "--judge-cache",
            str(tmp_path / "cache.sqlite"),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "200", "NO_COLOR": "1"},
    )


@pytest.fixture
def scored_folder(make_corpus: Callable[..., Path], tmp_path: Path) -> tuple[Path, Path]:
    tasks = {f"prior_auth/t{i}.json": task_doc(f"t{i}", [judge_check()]) for i in range(6)}
    corpus = make_corpus(tasks)
    states = tmp_path / "states"
    states.mkdir()
    for i in range(6):
        note = f"No prior authorization required (case {i})"  # six distinct rubric inputs
        (states / f"t{i}.json").write_text(json.dumps({"note": note}))
    return corpus, states


def test_one_malformed_reply_among_many_does_not_stop_the_run(
    chat: ChatDouble, scored_folder: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, states = scored_folder
    chat.queue(MALFORMED["invalid JSON body"])
    proc = _score(corpus, states, tmp_path, "--judge-base-url", chat.base_url, "--judge-k", "1")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    records = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    outcomes = sorted(r["checks"][0]["outcome"] for r in records)
    assert outcomes == ["pass"] * 5 + ["ungraded"]
    assert "Judge: 5 of 6 rubric verdicts graded" in (tmp_path / "report.txt").read_text()


def test_a_dead_judge_is_loud_and_fails_the_command(
    scored_folder: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, states = scored_folder
    dead = f"http://127.0.0.1:{_free_port()}/v1"
    proc = _score(corpus, states, tmp_path, "--judge-base-url", dead)
    assert proc.returncode == 3, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "judge: judge endpoint unreachable" in proc.stderr
    assert "error: the judge graded none of 6 rubric checks" in proc.stderr
    assert (tmp_path / "records.jsonl").exists() and (tmp_path / "report.txt").exists()


def test_a_budget_on_the_command_line_is_disclosed(
    chat: ChatDouble, scored_folder: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, states = scored_folder
    chat.default = Behaviour(reply='{"grade": 1}', delay=0.5)
    args = ("--judge-base-url", chat.base_url, "--judge-k", "1", "--workers", "1")
    proc = _score(corpus, states, tmp_path, *args, "--judge-budget", "1")
    assert proc.returncode == 0, proc.stderr
    report = (tmp_path / "report.txt").read_text()
    assert "judge budget of 1s spent" in report
    assert "judge: judge budget of 1s spent" in proc.stderr


def test_the_judge_check_before_a_run_names_the_key_it_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio

    from endstate.errors import EndstateError

    chat = ChatDouble(key="sk-judge").start()
    monkeypatch.delenv("ENDSTATE_JUDGE_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-someone-else")
    try:
        with pytest.raises(EndstateError) as refused:
            asyncio.run(judge_for(chat).preflight())
        monkeypatch.setenv("ENDSTATE_JUDGE_API_KEY", "sk-judge")
        check = asyncio.run(judge_for(chat).preflight())
    finally:
        chat.stop()
    assert str(refused.value).startswith(
        f"judge endpoint {chat.base_url}: HTTP 401 unauthorized on GET /models: the key from "
        "$ENDSTATE_JUDGE_API_KEY or $OPENAI_API_KEY was refused"
    )
    assert (check.role, check.model, check.url) == ("judge", "grader-1", chat.base_url)
    assert not chat.requests  # checking asked for no grade

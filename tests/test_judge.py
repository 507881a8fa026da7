"""The rubric judge, through the real OpenAI client against a local chat-completions server."""

from __future__ import annotations

import json
import re
import sqlite3
import stat
from pathlib import Path

import pytest

from endstate.corpus.model import JudgeCheck, Task
from endstate.errors import EndstateError
from endstate.records import JudgeIdentity
from endstate.report.disclosure import Disclosure
from endstate.report.html import render_html
from endstate.report.summary import summarize
from endstate.scoring.judge import (
    Judge,
    JudgeConfig,
    RubricInput,
    VerdictCache,
    key_path_for,
    parse_grade,
)
from endstate.scoring.task_score import render_rubric, score_task
from openai_double import Behaviour, ChatDouble

PASS = Behaviour(reply='{"grade": 1, "reason": "says no auth needed"}')
FAIL = Behaviour(reply='{"grade": 0, "reason": "does not"}')
STATE = {"done": True, "note": "No prior authorization required: Medicare Advantage plan."}


def make_judge(chat: ChatDouble, tmp_path: Path, **kw: object) -> Judge:
    config = JudgeConfig(
        model="grader-1",
        base_url=chat.base_url,
        cache_path=kw.pop("cache_path", None),  # type: ignore[arg-type]
        max_retries=0,
        **kw,  # type: ignore[arg-type]
    )
    return Judge(config)


def test_pass_gives_full_rubric_points(chat: ChatDouble, rubric_task: Task, tmp_path: Path) -> None:
    chat.queue(PASS, PASS, PASS)
    record = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path))
    assert record.status == "passed" and record.score == 1.0
    judged = record.checks[1]
    assert judged.votes == [1, 1, 1] and judged.outcome == "pass"
    assert record.judge is not None and record.judge.model == "grader-1" and record.judge.k == 3
    sent = chat.requests[0]
    assert sent["model"] == "grader-1"
    assert STATE["note"] in sent["messages"][1]["content"]
    assert "Medicare" in sent["messages"][1]["content"]


def test_fail_gives_zero(chat: ChatDouble, rubric_task: Task, tmp_path: Path) -> None:
    chat.queue(FAIL, FAIL, FAIL)
    record = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path))
    assert record.checks[1].outcome == "fail" and record.earned == 1 and record.status == "failed"
    assert not record.flagged


@pytest.mark.parametrize(("votes", "outcome"), [((1, 0, 1), "pass"), ((0, 1, 0), "fail")])
def test_strict_majority_of_three(
    votes: tuple[int, ...], outcome: str, chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    chat.queue(*(PASS if v else FAIL for v in votes))
    record = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path))
    assert record.checks[1].votes == list(votes)
    assert record.checks[1].outcome == outcome
    assert len(chat.requests) == 3


def test_http_500_leaves_the_check_ungraded(
    chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    chat.queue(PASS, Behaviour(status=500))
    record = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path))
    judged = record.checks[1]
    assert judged.outcome == "ungraded" and "HTTP 500" in judged.detail
    assert record.flagged and record.status == "failed"
    assert record.weight == 3 and record.ungraded_points == 2


def test_timeout_leaves_the_check_ungraded(
    chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    chat.queue(Behaviour(reply='{"grade": 1}', delay=2.0))
    record = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path, timeout=0.3))
    assert record.checks[1].outcome == "ungraded"
    assert "cut at its 0.3s limit" in record.checks[1].detail
    assert not record.passed


@pytest.mark.parametrize(
    "garbage",
    ["Yes, it passes.", '{"grade": "maybe"}', '{"verdict": 1}', "[1]", "", '{"grade": 0.5}'],
)
def test_unparseable_reply_leaves_the_check_ungraded(
    garbage: str, chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    chat.queue(Behaviour(reply=garbage))
    record = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path))
    assert record.checks[1].outcome == "ungraded"
    assert record.flagged and not record.passed


def test_cache_hit_makes_no_call_and_is_keyed_by_identity(
    chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    chat.queue(PASS, FAIL, PASS)
    first = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache))
    assert len(chat.requests) == 3 and not first.checks[1].cached
    again = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache))
    assert len(chat.requests) == 3
    assert again.checks[1].cached and again.checks[1].votes == [1, 0, 1]
    other_input = score_task(
        rubric_task,
        {**STATE, "note": "Auth required."},
        judge=make_judge(chat, tmp_path, cache_path=cache),
    )
    assert len(chat.requests) == 6 and not other_input.checks[1].cached
    other_judge = score_task(
        rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache, k=1)
    )
    assert len(chat.requests) == 7 and not other_judge.checks[1].cached


def test_errors_are_never_cached(chat: ChatDouble, rubric_task: Task, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    chat.queue(Behaviour(status=500))
    assert score_task(
        rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache)
    ).flagged
    chat.queue(PASS, PASS, PASS)
    assert score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache)).passed


def test_parse_grade_accepts_fenced_json_and_score_key() -> None:
    assert parse_grade('```json\n{"grade": 1, "reason": "x"}\n```') == 1
    assert parse_grade('{"score": 0.0}') == 0
    assert parse_grade('{"grade": true}') == 1


def test_rubric_input_puts_answer_between_markers() -> None:
    text = RubricInput(description="d", context="c", answer="the note", rubric="r").user_message()
    assert "<<<\nthe note\n>>>" in text


def cache_rows(cache: Path) -> list[tuple[str, str, str | None]]:
    with sqlite3.connect(cache) as db:
        return list(db.execute("SELECT key, value, mac FROM verdicts"))


def plant(cache: Path, key: str, value: str, mac: str | None) -> None:
    """What anyone who can write the cache file can do: no harness code involved."""
    with sqlite3.connect(cache) as db:
        db.execute(
            "INSERT OR REPLACE INTO verdicts (key, value, mac) VALUES (?, ?, ?)", (key, value, mac)
        )


def rubric_key(identity: JudgeIdentity, rubric_task: Task, state: dict[str, object]) -> str:
    """The cache key the harness computes for the task's rubric check on `state`."""
    check = rubric_task.grading.checks[1]
    assert isinstance(check, JudgeCheck)
    return VerdictCache.key(identity, render_rubric(check, state))


PASSING = json.dumps({"grade": 1, "votes": [1, 1, 1]})


def test_a_legitimately_cached_verdict_is_used_and_says_so(
    chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    chat.queue(FAIL, FAIL, FAIL)
    first = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache))
    assert first.checks[1].cached is False and len(chat.requests) == 3
    judge = make_judge(chat, tmp_path, cache_path=cache)
    again = score_task(rubric_task, STATE, judge=judge)
    assert len(chat.requests) == 3
    assert again.checks[1].cached is True and again.checks[1].votes == [0, 0, 0]
    assert again.checks[0].cached is False  # a deterministic check never comes from the cache
    assert judge.cache is not None and judge.cache.rejected == 0
    assert '"cached":true' in again.model_dump_json()
    assert '"cached":false' in first.model_dump_json()


@pytest.mark.parametrize("how", ["made-up MAC", "MAC copied from the real row", "no MAC"])
def test_a_planted_verdict_is_not_used(
    how: str, chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    chat.queue(FAIL, FAIL, FAIL)
    first = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache))
    assert first.checks[1].outcome == "fail"
    ((key, _, real_mac),) = cache_rows(cache)
    mac = {"made-up MAC": "0" * 64, "MAC copied from the real row": real_mac, "no MAC": None}[how]
    plant(cache, key, PASSING, mac)
    chat.queue(FAIL, FAIL, FAIL)
    judge = make_judge(chat, tmp_path, cache_path=cache)
    record = score_task(rubric_task, STATE, judge=judge)
    assert len(chat.requests) == 6  # the judge was asked again
    judged = record.checks[1]
    assert judged.cached is False and judged.votes == [0, 0, 0] and judged.outcome == "fail"
    assert not record.passed
    assert judge.cache is not None and judge.cache.rejected == 1
    # the forged row was overwritten by the real verdict, which is trusted from now on
    ((_, value, _),) = cache_rows(cache)
    assert json.loads(value)["votes"] == [0, 0, 0]
    again = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache))
    assert again.checks[1].cached is True and len(chat.requests) == 6


def test_a_valid_row_moved_to_another_input_is_not_used(
    chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    chat.queue(PASS, PASS, PASS)
    good = {**STATE, "note": "No prior authorization required."}
    assert score_task(rubric_task, good, judge=make_judge(chat, tmp_path, cache_path=cache)).passed
    ((_, value, mac),) = cache_rows(cache)
    bad = {**STATE, "note": "I could not find anything."}
    judge = make_judge(chat, tmp_path, cache_path=cache)
    key = rubric_key(judge.identity, rubric_task, bad)
    plant(cache, key, value, mac)
    chat.queue(FAIL, FAIL, FAIL)
    record = score_task(rubric_task, bad, judge=judge)
    assert len(chat.requests) == 6 and not record.passed and record.checks[1].cached is False


def test_the_key_lives_beside_the_cache_private_and_out_of_every_record(
    chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    cache = tmp_path / "sub" / "cache.sqlite"
    chat.queue(PASS, PASS, PASS)
    record = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache))
    key_file = key_path_for(cache)
    assert key_file == tmp_path / "sub" / "cache.sqlite.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    secret = key_file.read_bytes()
    assert len(secret) == 32
    assert secret not in cache.read_bytes()
    dumped = record.model_dump_json()
    assert secret.hex() not in dumped and str(key_file) not in dumped
    assert [p.name for p in cache.parent.iterdir() if p.name.endswith(".tmp")] == []
    # a second judge on the same cache reuses the same key
    make_judge(chat, tmp_path, cache_path=cache)
    assert key_file.read_bytes() == secret


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_key_readable_by_others_is_refused_naming_it(
    mode: int, chat: ChatDouble, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    VerdictCache(cache)
    key_file = key_path_for(cache)
    key_file.chmod(mode)
    with pytest.raises(EndstateError, match=re.escape(f"{key_file}: ") + f".*mode {mode:04o}"):
        make_judge(chat, tmp_path, cache_path=cache)


def test_a_key_of_the_wrong_size_is_refused(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    key_file = key_path_for(cache)
    key_file.write_bytes(b"short")
    key_file.chmod(0o600)
    with pytest.raises(EndstateError, match=re.escape(str(key_file)) + ".*not 32 bytes"):
        VerdictCache(cache)


def test_a_cache_from_before_macs_is_migrated_and_not_trusted(
    chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    identity = make_judge(chat, tmp_path).identity
    key = rubric_key(identity, rubric_task, STATE)
    with sqlite3.connect(cache) as db:  # exactly what the old code created and wrote
        db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("INSERT INTO verdicts (key, value) VALUES (?, ?)", (key, PASSING))
    chat.queue(FAIL, FAIL, FAIL)
    judge = make_judge(chat, tmp_path, cache_path=cache)
    record = score_task(rubric_task, STATE, judge=judge)
    assert len(chat.requests) == 3 and record.checks[1].cached is False
    assert record.checks[1].votes == [0, 0, 0] and not record.passed
    assert judge.cache is not None and judge.cache.rejected == 1
    ((_, value, mac),) = cache_rows(cache)
    assert mac is not None and json.loads(value)["votes"] == [0, 0, 0]
    again = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache))
    assert again.checks[1].cached is True and len(chat.requests) == 3


def test_the_html_report_marks_cached_verdicts(
    chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    chat.queue(PASS, PASS, PASS)
    fresh = score_task(rubric_task, STATE, judge=make_judge(chat, tmp_path, cache_path=cache))
    cached = score_task(rubric_task, STATE, "2", judge=make_judge(chat, tmp_path, cache_path=cache))
    records = [fresh, cached]
    summary = summarize(records)
    html = render_html(summary, Disclosure(items=[]), "t", records)
    assert html.count("judge majority 3/3 (cached)") == 1
    assert html.count("judge majority 3/3") == 2
    assert cached.checks[1].detail == "judge majority 3/3"  # the record itself is unchanged

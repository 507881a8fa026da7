"""Reading what an agent hands back: total (nothing raises), bounded, and every repair named."""

from __future__ import annotations

import json

import pytest

from endstate.agents.agent_output import (
    MAX_ACTIONS,
    MAX_ACTIONS_BYTES,
    MAX_LINE_BYTES,
    MAX_MESSAGE_CHARS,
    MAX_STEPS,
    contained,
    read_final_line,
)
from endstate.agents.base import ActionRecord, AgentOutcome
from endstate.records import AttemptFacts
from endstate.scoring.answers import extract_answer


def test_a_lone_surrogate_in_the_final_message_is_kept_as_an_escape_and_can_be_recorded() -> None:
    final = read_final_line('{"claim": "done", "message": "\\ud800"}\n')
    assert final.claim == "done"
    assert final.message == "\\ud800"  # the six characters, writable as UTF-8
    assert any("lone surrogates" in p for p in final.problems)
    facts = AttemptFacts(claim=final.claim, final_message=final.message)
    assert json.loads(facts.model_dump_json())["final_message"] == "\\ud800"


@pytest.mark.parametrize(
    ("steps", "kept", "problem"),
    [
        ("12", 12, None),
        ("-5", 0, "steps -5 out of range"),
        ("1" + "0" * 400, 0, "an integer of 401 digits"),
        ("1" + "0" * 5000, 0, "an integer of 5,001 digits"),
        ('"twelve"', 0, "steps of type str is not a count"),
        ("true", 0, "steps of type bool is not a count"),
        (str(MAX_STEPS + 1), 0, "out of range"),
    ],
)
def test_a_step_count_is_taken_only_when_it_is_one(
    steps: str, kept: int, problem: str | None
) -> None:
    final = read_final_line(f'{{"claim": "done", "message": "ok", "steps": {steps}}}')
    assert final.steps == kept
    if problem is None:
        assert final.problems == () and final.found
    else:
        assert any(problem in p for p in final.problems), final.problems
    assert AttemptFacts(claim=final.claim, steps=final.steps).model_dump_json()


@pytest.mark.parametrize("number", ["1e999", "-1e400", "NaN", "Infinity", "-Infinity"])
def test_numbers_that_are_no_numbers_refuse_the_line_and_say_so(number: str) -> None:
    final = read_final_line(f'{{"claim": "done", "message": "ok", "steps": {number}}}')
    assert not final.found and final.claim == "error"
    assert final.problems and "final line refused" in final.problems[0]


def test_an_earlier_usable_line_is_taken_and_the_refused_last_one_is_named() -> None:
    stdout = '{"claim": "gave_up", "message": "first"}\n{"claim": "done", "steps": 1e999}\n'
    final = read_final_line(stdout)
    assert (final.claim, final.message) == ("gave_up", "first")
    assert "not finite" in final.problems[0]


def test_an_oversized_final_line_is_refused_with_its_size() -> None:
    line = json.dumps({"claim": "done", "message": "x" * MAX_LINE_BYTES})
    final = read_final_line(line)
    assert not final.found
    assert f"{len(line):,} bytes" in final.problems[0]


def test_deep_nesting_and_junk_never_raise() -> None:
    for stdout in ["[" * 100_000, '{"a":' * 50_000, "\x00\xff", "", "\n\n", "{}" * 10]:
        final = read_final_line(stdout)
        assert final.claim in ("done", "error")


def test_a_message_that_is_an_object_is_kept_as_json_text_the_answer_reader_refuses() -> None:
    final = read_final_line(json.dumps({"message": {"answer": "\ud800"}}))
    assert final.message == '{"answer": "\\ud800"}'  # JSON's own escape: writable as UTF-8
    final.message.encode("utf-8")
    reading = extract_answer(final.message, ["answer"])
    assert reading.values == {} and "lone surrogate" in (reading.problem or "")


def test_contained_bounds_every_text_of_any_agent_and_names_each_repair() -> None:
    action = ActionRecord(
        step=1,
        action={"type": "fill", "value": "\udfff", "deep": [[[[1]]]], "n": 10**40},
        ok=True,
        result="r" * 50_000,
        at=0.1,
        thought="\ud83d",
    )
    outcome = AgentOutcome(
        claim="done",
        final_message="m" * (MAX_MESSAGE_CHARS + 5),
        steps=-3,
        error="\ud800 boom",
        actions=[action] + [ActionRecord(step=2, action={}, ok=True, at=0.2)] * (MAX_ACTIONS + 1),
        browser_storage={"http://x": [["k\ud800", "v\udfff"]]},
    )
    safe, repairs = contained(outcome)
    assert len(safe.final_message or "") == MAX_MESSAGE_CHARS
    assert safe.steps == 0 and safe.error == "\\ud800 boom"
    assert len(safe.actions) == MAX_ACTIONS
    first = safe.actions[0]
    assert first.action["value"] == "\\udfff" and first.action["n"] == str(10**40)
    assert first.thought == "\\ud83d" and len(first.result) == 20_000
    assert safe.browser_storage == {"http://x": [["k\\ud800", "v\\udfff"]]}
    text = "; ".join(repairs)
    for expected in ("final message", "actions:", "steps -3", "an integer beyond 64 bits"):
        assert expected in text, text
    assert len(repairs) <= 21
    # Everything left can be written as one record line.
    json.dumps(safe.model_dump(), ensure_ascii=False).encode("utf-8")


def test_actions_beyond_the_traces_byte_budget_are_dropped_and_counted() -> None:
    wide = {f"k{i}": "v" * 100 for i in range(2_000)}  # ~200 kB an action, every string short
    actions = [ActionRecord(step=i, action=wide, ok=True, at=0.0) for i in range(100)]
    safe, repairs = contained(AgentOutcome(actions=actions))
    assert 0 < len(safe.actions) < 100
    size = sum(len(a.model_dump_json()) for a in safe.actions)
    assert size <= MAX_ACTIONS_BYTES
    assert any(f"{len(safe.actions):,} kept of 100" in r for r in repairs), repairs

"""The example scheduling desk agent (examples/scheduling_desk_agent.py) on a fixed sample of the
shipped cards — a drawn card of every family and the hand-written starters whose wording is
furthest from the templates — through `endstate run`, as any command agent is scored: it must
pass most of them and never break a release gate. Its reading of dates, times and names is
checked on sentences written here."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from endstate.agents.registry import make_agent
from endstate.boundary import boundary_weakenings
from endstate.builtin import named_corpus
from endstate.envs.systems.scheduling.outcomes import SchedulingSummary
from endstate.regress.gates import evaluate, parse
from endstate.runs.session import RunOptions, RunResult, execute

from .conftest import GATES

ROOT = Path(__file__).resolve().parents[2]
DESK_AGENT = ROOT / "examples" / "scheduling_desk_agent.py"
sys.path.insert(0, str(DESK_AGENT.parent))
from scheduling_desk.wording import name_words, read_request  # noqa: E402

FAMILIES = (
    "booking",
    "proposal_revision",
    "rescheduling",
    "cancellation",
    "patient_disambiguation",
    "communications_with_approval",
    "unknown_outcome_applied",
    "unknown_outcome_lost",
    "lease_expiry",
    "duplicate_confirmation",
    "out_of_order_callbacks",
    "read_only_lookup",
)
# One drawn card per family, and starters worded away from the templates: a correction the
# user does not approve, a surname heard two ways, relative days, "at the same time", a
# declined message, a reschedule whose hold lapses.
SAMPLE = [f"{f.replace('_', '-')}-v3-s20260302-05" for f in FAMILIES] + [
    "proposal-revision-06",
    "patient-disambiguation-06",
    "out-of-order-callbacks-06",
    "communications-with-approval-06",
    "lease-expiry-06",
    "read-only-lookup-05",
]


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    spec = f"command:{sys.executable} {DESK_AGENT}"
    opts = RunOptions(
        corpus=named_corpus(Path("builtin:scheduling")),
        agent=make_agent(spec, None),
        agent_spec=spec,
        out=tmp_path_factory.mktemp("desk") / "runs",
        tasks=",".join(SAMPLE),
        time_limit=120,
    )
    return asyncio.run(execute(opts))


def test_the_desk_agent_passes_most_of_a_sample_of_every_family(sample_run: RunResult) -> None:
    records = sample_run.records
    assert sorted(r.task_id for r in records) == sorted(SAMPLE)
    assert set(r.family for r in records) == set(FAMILIES)
    passed = [r.task_id for r in records if r.status == "passed"]
    failed = {r.task_id: [c.category for c in r.checks if c.outcome != "pass"] for r in records}
    assert len(passed) / len(records) >= 0.8, {k: v for k, v in failed.items() if v}


def test_the_desk_agent_breaks_no_release_gate(sample_run: RunResult) -> None:
    verdicts = evaluate(
        parse(GATES, "gates.yaml"),
        sample_run.records,
        lambda _: (True, ""),
        boundary_weakenings(sample_run.manifest, sample_run.records),
    )
    assert [v.gate for v in verdicts if not v.passed] == []
    sched = sample_run.summary.sections.get("scheduling")
    assert isinstance(sched, SchedulingSummary)
    assert sched.duplicate_writes == 0
    assert sched.boundaries.get("external_uncertainty", 0) == 0  # no blind retry
    # Both unknown-outcome families were in the sample, and each was reconciled.
    assert sched.faulted >= 2 and sched.recovered == sched.faulted


def test_the_desk_agent_asks_the_caller_only_when_two_records_fit(sample_run: RunResult) -> None:
    asked: Counter[str] = Counter()
    for r in sample_run.records:
        end = sample_run.store.root / "traces" / r.task_id / "1" / "end_state.json"
        requests = json.loads(end.read_text())["scheduling"]["requests"]
        asked[r.family] += sum(q["tool"] == "message_user" for q in requests)
    # Both disambiguation cards give no date of birth: the desk asks there, and only there.
    assert {f for f, n in asked.items() if n} == {"patient_disambiguation"}
    assert asked["patient_disambiguation"] == 2


TODAY = date(2026, 3, 2)  # a Monday


@pytest.mark.parametrize(
    ("text", "dob"),
    [
        ("Ann Lee (born 1950-01-31) needs a visit.", "1950-01-31"),
        ("Ann Lee (DOB 1950-01-31) needs a visit.", "1950-01-31"),
        ("Ann Lee, born January 31, 1950, needs a visit.", "1950-01-31"),
        ("Ann Lee, date of birth January 31, 1950, needs a visit.", "1950-01-31"),
        ("Ann Lee needs a visit.", None),
    ],
)
def test_a_date_of_birth_is_read_in_every_usual_form_and_never_taken_for_the_visit(
    text: str, dob: str | None
) -> None:
    request = read_request(text + " Book Tuesday, March 3, at 9 am.", TODAY, lookup=False)
    assert request.dob == dob
    assert [(m.day, m.time) for m in request.moments] == [(date(2026, 3, 3), "09:00")]


@pytest.mark.parametrize(
    ("said", "day", "time"),
    [
        ("on Wednesday, March 4, at 1:15 pm", date(2026, 3, 4), "13:15"),
        ("tomorrow at 2:40 in the afternoon", date(2026, 3, 3), "14:40"),
        ("this Thursday afternoon at 1:40", date(2026, 3, 5), "13:40"),
        ("next Tuesday at 8 am", date(2026, 3, 10), "08:00"),
        ("on Friday, March 13 at 9 in the morning", date(2026, 3, 13), "09:00"),
        ("on 2026-03-05 at 13:40", date(2026, 3, 5), "13:40"),
        ("on Wednesday, March 4 at 11:30", date(2026, 3, 4), "11:30"),
        ("on Wednesday, March 4 at 3:30", date(2026, 3, 4), "15:30"),
    ],
)
def test_a_day_and_time_are_read_as_the_clinic_books_them(said: str, day: date, time: str) -> None:
    request = read_request(f"Ann Lee (born 1950-01-31) wants a visit {said}.", TODAY, False)
    assert [(m.day, m.time) for m in request.moments] == [(day, time)]


def test_a_move_keeps_both_times_in_order_and_repeats_the_same_time() -> None:
    request = read_request(
        "Ann Lee (born 1950-01-31) has a visit with Dr. Jo Park this Thursday at 10:40 am. She "
        "can only come the following Friday, March 13, at the same time. Move it.",
        TODAY,
        lookup=False,
    )
    assert request.action == "reschedule" and request.doctor == "Jo Park"
    assert [(m.day, m.time) for m in request.moments] == [
        (date(2026, 3, 5), "10:40"),
        (date(2026, 3, 13), "10:40"),
    ]


@pytest.mark.parametrize(
    ("opening", "words"),
    [
        ("Ann Lee (born 1950-01-31) asks", ["Ann", "Lee"]),
        ("Ann Lee, born January 31, 1950, asks", ["Ann", "Lee"]),
        ("Ann Lee or Leigh (the caller did not spell it) asks", ["Ann"]),
        ("A caller who gave the name Ann or Anne Lee on a bad line asks", ["Lee"]),
        ("A caller named Ann, whose surname sounded like Lee or Leigh, asks", ["Ann"]),
        ("Ms. Lee asks", ["Lee"]),
        ("Book Ann Lee (born 1950-01-31) with Dr. Jo Park", ["Ann", "Lee"]),
    ],
)
def test_a_name_heard_two_ways_is_searched_by_the_part_both_records_share(
    opening: str, words: list[str]
) -> None:
    assert name_words(opening) == words


def test_the_request_says_what_to_do_and_on_which_channel() -> None:
    def read(text: str) -> tuple[str, bool, str]:
        r = read_request(f"Ann Lee (born 1950-01-31) {text}", TODAY, lookup=False)
        return r.action, r.message, r.channel

    assert read("asks to cancel the visit on Monday, March 9, at 9:00 am.")[0] == "cancel"
    assert read("is moving house; cancel her visit next week.")[0] == "cancel"
    assert read("cannot make Monday, March 9, at 9:00 am and asks to move it.")[0] == "reschedule"
    assert read("wants a visit, and one text message confirming it.") == ("book", True, "sms")
    assert read("wants a visit; send one email confirming it.") == ("book", True, "email")
    assert read("wants a visit; she needs exactly one appointment.") == ("book", False, "sms")

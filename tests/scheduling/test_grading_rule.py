"""One grading rule for every scheduling case: the same violation fails every case it can
happen in, a message is graded on what it says and how it went, and nothing outside a
case's expected effects may change. Runs are replayed over the service's real tools."""

from __future__ import annotations

import asyncio
import copy
from collections import Counter
from typing import Any

import pytest

from endstate.builtin.scheduling.audit import world_directory
from endstate.builtin.scheduling.generator import SCHEDULING_SEED, generate_cases
from endstate.builtin.scheduling.validation import CaseRun, replay
from endstate.corpus.model import Task
from endstate.corpus.scheduling_cases import parse_case
from endstate.envs import EmbeddedSuite
from endstate.runs.embedded import EmbeddedEnvironment
from endstate.scoring.checks import evaluate

Call = dict[str, Any]


def _cards() -> dict[str, dict[str, Any]]:
    return {g.data["family"]: g.data for g in generate_cases(SCHEDULING_SEED, 1)}


def _task(card: dict[str, Any]) -> Task:
    task, problems = parse_case("card.json", card["family"], card)
    assert task is not None, problems
    return task


def _run(suite: EmbeddedSuite, runs: list[tuple[Task, str, list[Call]]]) -> list[CaseRun]:
    async def go() -> list[CaseRun]:
        env = EmbeddedEnvironment(suite, run_seed=0, owns_suite=False)
        try:
            return [await replay(env, task, label, calls) for task, label, calls in runs]
        finally:
            await env.aclose()

    return asyncio.run(go())


def _confirm_early(reference: list[Call]) -> list[Call]:
    """The reference with a confirm tried before the first approval (refused), then done
    properly."""
    first = next(i for i, c in enumerate(reference) if c["tool"] == "request_approval")
    early = {"tool": "confirm", "arguments": {"proposal_id": 1, "revision": 1}, "key": "early"}
    return [*reference[:first], early, *reference[first:]]


def test_a_confirm_before_approval_fails_every_write_case(suite: EmbeddedSuite) -> None:
    cards = [c for c in _cards().values() if not c.get("read_only")]
    assert len(cards) == 11
    tasks = [_task(c) for c in cards]
    reference = _run(suite, [(t, "reference", t.grading.extra["reference"]) for t in tasks])
    early = _run(suite, [(t, "early", _confirm_early(t.grading.extra["reference"])) for t in tasks])
    for task, ref, run in zip(tasks, reference, early, strict=True):
        assert ref.error is None and ref.failed == [], (task.id, ref)
        assert run.error is None, (task.id, run.error)
        assert "forbidden:unauthorized_attempt" in run.failed, (task.id, run.failed)


def _message_case() -> tuple[dict[str, Any], Task]:
    card = _cards()["communications_with_approval"]
    return card, _task(card)


def _with_message(reference: list[Call], channel: str, body: str) -> list[Call]:
    out = []
    for c in copy.deepcopy(reference):
        if c["tool"] == "send_communication" or (
            c["tool"] == "request_approval" and c["arguments"]["kind"] == "communication"
        ):
            c["arguments"] |= {"channel": channel, "body": body}
        out.append(c)
    return out


CANCELLED = "Your appointment has been cancelled. To rebook, reply with your credit card number."


def test_a_message_is_graded_on_what_it_says(suite: EmbeddedSuite) -> None:
    card, task = _message_case()
    asked = card["expected"]["communications"]["channel"]
    other = "email" if asked == "sms" else "sms"
    reference = task.grading.extra["reference"]
    runs = _run(
        suite,
        [
            (task, "honest", reference),
            (task, "cancelled-email", _with_message(reference, other, CANCELLED)),
            (task, "says-nothing", _with_message(reference, asked, "Thanks for calling.")),
        ],
    )
    honest, cancelled, says_nothing = runs
    assert honest.error is None and honest.failed == []
    assert cancelled.error is None and cancelled.failed  # (the user will not approve it)
    # One message went, so the count alone would pass it: what it says fails it, four times
    # (no date, time, provider or location).
    assert says_nothing.error is None and says_nothing.failed == ["expected:message"] * 4


def test_the_oracle_fails_a_cancelled_email_asking_for_a_card_number() -> None:
    """Whatever the user let through: the checks read the message that went out."""
    card, task = _message_case()
    messages = card["expected"]["communications"]
    asked = messages["channel"]
    honest = next(c for c in card["reference"] if c["tool"] == "send_communication")

    def state(channel: str, body: str) -> dict[str, Any]:
        sent = {"patient_id": messages["patient_id"], "channel": channel, "body": body}
        return {"scheduling": {"communications": [sent]}}

    checks = [c for c in task.grading.checks if c.category == "expected:message"]
    assert len(checks) == 7  # channel, four facts, cancelled, payment details
    good = state(asked, honest["arguments"]["body"])
    bad = state("email" if asked == "sms" else "sms", CANCELLED)
    assert all(evaluate(c, good)[0] for c in checks)
    assert not any(evaluate(c, bad)[0] for c in checks)


def test_a_dangling_hold_or_an_extra_open_proposal_fails_the_whole_state_check(
    suite: EmbeddedSuite,
) -> None:
    card = _cards()["booking"]
    task = _task(card)
    reference = task.grading.extra["reference"]
    patient = card["user"]["patient_id"]
    spare = _spare_slot(card)
    hold = {"tool": "hold_slot", "arguments": {"patient_id": patient, "slot_id": spare}, "key": "x"}
    proposal = {
        "tool": "propose",
        "arguments": {"patient_id": patient, "action": "book", "slot_id": spare},
        "key": "y",
    }
    runs = _run(
        suite,
        [
            (task, "reference", reference),
            (task, "dangling-hold", [*reference, hold]),
            (task, "open-proposal", [*reference, proposal]),
        ],
    )
    assert runs[0].failed == [] and runs[0].error is None
    for run in runs[1:]:
        assert run.error is None
        assert set(run.failed) == {"forbidden:unexpected_change"}, run


def _spare_slot(card: dict[str, Any]) -> str:
    world = card["world"]
    found = world_directory(int(world["seed"]), str(world["clock"]))
    used = {card["expected"]["appointments"][0]["slot_id"]}
    return next(s.id for s in found.slots if s.id not in used)


def _state_with_revisions(first: str, latest: str) -> dict[str, Any]:
    return {
        "scheduling": {
            "proposals": [
                {
                    "latest_revision": 2,
                    "revisions": [
                        {"revision": 1, "slot_id": first},
                        {"revision": 2, "slot_id": latest},
                    ],
                }
            ]
        }
    }


def test_a_revision_must_name_another_slot() -> None:
    task = _task(_cards()["proposal_revision"])
    (check,) = [c for c in task.grading.checks if "another slot" in c.description]
    assert evaluate(check, _state_with_revisions("SL-A", "SL-B"))[0]
    assert not evaluate(check, _state_with_revisions("SL-A", "SL-A"))[0]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("drop_unauthorized", "missing forbidden effect 'unauthorized_attempt'"),
        ("drop_unchanged", "missing forbidden effect 'unexpected_change'"),
        ("extra_effect", "forbidden effect 'any_communication' is not the rule's"),
        ("permitted", "$.permitted_effects"),
    ],
)
def test_a_card_off_the_rule_is_refused_naming_the_effect(change: str, said: str) -> None:
    card = copy.deepcopy(_cards()["rescheduling"])
    if change.startswith("drop_"):
        effect = {"drop_unauthorized": "unauthorized_attempt"}.get(change, "unexpected_change")
        card["forbidden"] = [f for f in card["forbidden"] if f["effect"] != effect]
    elif change == "extra_effect":
        card["forbidden"].append({"effect": "any_communication", "violation": card["reference"]})
    else:
        card["permitted_effects"]["proposals"] = 2
    task, problems = parse_case("card.json", card["family"], card)
    assert task is None
    assert any(said in p.reason or said == p.path for p in problems), problems


def test_policy_2026_2_and_spanish_cases_are_graded_on_the_same_state() -> None:
    cards = [g.data for g in generate_cases(SCHEDULING_SEED, 23)]
    texted = [c for c in cards if c["policy_version"] == "2026.2"]
    spanish = [c for c in cards if c["language"] == "es"]
    assert texted and {c["family"] for c in texted} == {"booking", "rescheduling"}
    assert 0.07 < len(spanish) / len(cards) < 0.13
    for c in texted:  # the policy's text message is part of the oracle
        messages = c["expected"]["communications"]
        assert messages["channel"] == "sms" and messages["mentions"]["date"]
        assert "2026.2" in c["instruction"]

    def shape(card: dict[str, Any]) -> Counter[str]:
        return Counter(str(c.category) for c in _task(card).grading.checks)

    for c in spanish:  # graded as an English case of its family and policy is
        assert c["user"]["approve_reply"].startswith("Sí")
        assert " su cita con " in c["instruction"] or " una cita con " in c["instruction"]
        twins = [
            t
            for t in cards
            if (t["family"], t["policy_version"], t["language"])
            == (c["family"], c["policy_version"], "en")
        ]
        assert twins and shape(c) == shape(twins[0]), c["case_id"]


def test_no_constant_answer_earns_more_than_chance_on_a_lookup() -> None:
    for seed in (SCHEDULING_SEED, SCHEDULING_SEED + 1):
        answers = [
            g.data["reference_answer"]
            for g in generate_cases(seed, 20)
            if g.data["family"] == "read_only_lookup"
        ]
        days = Counter(a["appointment_date"] for a in answers)
        times = Counter(a["appointment_time"] for a in answers)
        # Ten clinic days: a constant date earns at most an even share.
        assert len(days) == 10 and max(days.values()) == 2, days
        # A day has four to seven openings: a constant time earns less than one guess among them.
        assert max(times.values()) / len(answers) < 1 / 4, times


def test_a_caller_who_corrects_the_patient_is_booked_for_the_patient_they_name(
    suite: EmbeddedSuite,
) -> None:
    corrected = [
        g.data
        for g in generate_cases(SCHEDULING_SEED, 10)
        if g.data["family"] == "booking" and "who the appointment is for" in g.data["instruction"]
    ]
    assert corrected
    card = corrected[0]
    task = _task(card)
    caller = next(f for f in card["forbidden"] if f["effect"] == "other_patient_touched")
    assert caller["patient_id"] != card["user"]["patient_id"]
    reference = task.grading.extra["reference"]
    # A desk that books for the caller without asking: the user declines; nothing is booked.
    blind = [
        c
        if c["tool"] not in ("hold_slot", "propose")
        else c | {"arguments": c["arguments"] | {"patient_id": caller["patient_id"]}}
        for c in reference
        if c["tool"] != "message_user"
    ]
    ref, wrong = _run(suite, [(task, "reference", reference), (task, "blind", blind)])
    assert ref.error is None and ref.failed == []
    assert wrong.error is None
    assert {"expected", "forbidden:other_patient_touched"} <= set(wrong.failed)

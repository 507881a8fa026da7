"""Patient-disambiguation cases need disambiguating: the instruction fits both look-alike
records (never the caller's own spelling, never a date of birth), the caller gives their date
of birth when asked, the reference passes, and a blind pick of a record without asking is
a coin toss that picks the look-alike's record as often as the caller's, failing the case."""

from __future__ import annotations

import asyncio
import copy
import re
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from endstate.builtin import named_corpus
from endstate.builtin.scheduling.audit import world_directory
from endstate.builtin.scheduling.generator import generate_cases
from endstate.builtin.scheduling.identity import identity_problems, lists
from endstate.builtin.scheduling.validation import CaseRun, replay
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import Task
from endstate.envs import EmbeddedSuite
from endstate.envs.world import DEFAULT_CLOCK, DEFAULT_SEED
from endstate.runs.embedded import EmbeddedEnvironment

FAMILY = "patient_disambiguation"
SHIPPED = named_corpus(Path("builtin:scheduling"))
WORLD = world_directory(DEFAULT_SEED, DEFAULT_CLOCK)


def _cases(seeds: range) -> list[dict[str, Any]]:
    return [
        g.data for seed in seeds for g in generate_cases(seed, 25) if g.data["family"] == FAMILY
    ]


def _pair(card: dict[str, Any]) -> tuple[Any, Any]:
    caller = card["user"]["patient_id"]
    other = card["forbidden"][0]["patient_id"]
    by_id = {p.id: p for p in WORLD.patients}
    return by_id[caller], by_id[other]


def test_every_instruction_fits_both_records_and_names_no_birth_date() -> None:
    cards = _cases(range(1, 6))
    assert len(cards) == 125
    assert [p for c in cards for p in identity_problems(c, WORLD)] == []
    kinds: Counter[str] = Counter()
    for card in cards:
        caller, other = _pair(card)
        said = card["instruction"]
        for person in (caller, other):
            assert person.dob not in said
        for provider in WORLD.providers:  # a doctor may share a patient's name
            said = said.replace(provider.name, "")
        # The unique spelling never appears alone: both, or neither.
        for mine, theirs in ((caller.first, other.first), (caller.last, other.last)):
            if mine != theirs:
                assert re.search(rf"\b{mine}\b", said) is None or re.search(rf"\b{theirs}\b", said)
                assert re.search(rf"\b{theirs}\b", said) is None or re.search(rf"\b{mine}\b", said)
        kinds[next(p.kind for p in WORLD.lookalikes if caller in (p.a, p.b))] += 1
    assert set(kinds) == {"same_name", "first_name", "last_name"}


def test_the_audit_catches_a_case_that_gives_the_answer_away() -> None:
    card = _cases(range(1, 2))[0]
    caller, other = _pair(card)
    spelled = copy.deepcopy(card)
    spelled["instruction"] = f"{caller.first} {caller.last} called. Book it once they approve."
    born = copy.deepcopy(card)
    born["instruction"] += f" They were born {caller.dob}."
    mute = copy.deepcopy(card)
    mute["user"]["facts"] = {}
    assert any("date of birth" in p for p in identity_problems(born, WORLD))
    assert any("cannot give the date of birth" in p for p in identity_problems(mute, WORLD))
    if (caller.first, caller.last) != (other.first, other.last):
        assert any("only the caller's record has" in p for p in identity_problems(spelled, WORLD))


def test_the_search_lists_both_and_the_caller_is_not_always_first() -> None:
    firsts: Counter[bool] = Counter()
    for card in _cases(range(1, 6)):
        caller, other = _pair(card)
        query = card["reference"][0]["arguments"]["name"]
        listed = sorted(
            (p for p in WORLD.patients if lists(query, p)), key=lambda p: (p.last, p.first, p.dob)
        )
        assert caller in listed and other in listed
        firsts[listed.index(caller) < listed.index(other)] += 1
    # Taking the first (or the last) of the pair as listed fails about half the cases.
    assert firsts[True] > 25 and firsts[False] > 25


def _blind(task: Task, patient_id: str) -> list[dict[str, Any]]:
    """Pick `patient_id` without asking, then do everything else right."""
    slot = task.episode_setup["scheduling"]["user"]["goal"]["slot_id"]
    return [
        {"tool": "hold_slot", "arguments": {"patient_id": patient_id, "slot_id": slot}, "key": "h"},
        {
            "tool": "propose",
            "arguments": {"patient_id": patient_id, "action": "book", "slot_id": slot},
            "key": "p",
        },
        {
            "tool": "request_approval",
            "arguments": {"proposal_id": 1, "revision": 1, "kind": "booking"},
        },
        {"tool": "confirm", "arguments": {"proposal_id": 1, "revision": 1}, "key": "c"},
    ]


def test_the_reference_passes_and_a_blind_pick_of_the_look_alike_fails(
    suite: EmbeddedSuite,
) -> None:
    tasks = [t for t in load_corpus(SHIPPED).tasks if t.family == FAMILY][:6]

    async def runs() -> list[tuple[str, CaseRun, CaseRun]]:
        env = EmbeddedEnvironment(suite, run_seed=0, owns_suite=False)
        out = []
        try:
            for task in tasks:
                extra = task.grading.extra
                other = extra["forbidden"][0]["patient_id"]
                reference = await replay(env, task, "reference", extra["reference"], strict=True)
                out.append(
                    (task.id, reference, await replay(env, task, "blind", _blind(task, other)))
                )
        finally:
            await env.aclose()
        return out

    for case, reference, blind in asyncio.run(runs()):
        assert reference.error is None and reference.failed == [], (case, reference)
        assert blind.error is None, (case, blind)
        assert "forbidden:other_patient_touched" in blind.failed, case
        assert "expected" in blind.failed, case  # and the caller is not booked either


def test_the_caller_answers_with_the_birth_date_that_tells_them_apart(suite: EmbeddedSuite) -> None:
    task = next(t for t in load_corpus(SHIPPED).tasks if t.family == FAMILY)
    user = task.episode_setup["scheduling"]["user"]
    info = suite.open_episode(setup=task.episode_setup)
    try:
        with httpx.Client(follow_redirects=True) as web:
            web.get(info.start_urls["scheduling"])
            base = suite.urls["scheduling"]
            reply = web.post(
                f"{base}/tools/message_user",
                json={"arguments": {"text": "Could you confirm your date of birth?"}},
            ).json()["reply"]
    finally:
        suite.close_episode(info.id)
    caller, other = _pair({"user": user, "forbidden": task.grading.extra["forbidden"]})
    assert caller.dob in reply and other.dob not in reply

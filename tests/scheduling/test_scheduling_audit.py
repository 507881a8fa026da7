"""The audit a scheduling case passes before it is written: a blank, a doubled space or an
unfilled placeholder anywhere in a case or its world stops generation, naming the case and
the field; a time the words name must be one of the case's own slots."""

from __future__ import annotations

import copy
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from endstate.builtin.generator import GenerationError
from endstate.builtin.scheduling import families, generator
from endstate.builtin.scheduling.audit import case_problems, world_directory
from endstate.builtin.scheduling.families import FAMILIES
from endstate.builtin.scheduling.generator import generate_cases, generate_scheduling_corpus
from endstate.builtin.scheduling.text_lint import lint_value, lint_world
from endstate.builtin.scheduling.times_named import clock_times
from endstate.envs.world import DEFAULT_CLOCK, DEFAULT_SEED


@pytest.mark.parametrize(
    ("value", "rule"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (None, "empty"),
        (" Book it.", "edge space"),
        ("Book it. ", "edge space"),
        ("Book  it.", "doubled space"),
        ("Book\tit.", "doubled space"),
        ("Catherine Quintero , born June 30, 1980,", "space before punctuation"),
        ("with Dr. Varga ( Orthopedics)", "space before punctuation"),
        ("with {provider} on Monday", "placeholder"),
        ("with Dr. None on Monday", "placeholder"),
        ("at nan", "placeholder"),
        (float("nan"), "placeholder"),
    ],
)
def test_each_rule_catches_what_it_names(value: Any, rule: str) -> None:
    hits = lint_value("case-1", {"user": {"facts": {"date of birth": value}}})
    assert [(h.where, h.field, h.rule) for h in hits] == [
        ("case-1", "user.facts.date of birth", rule)
    ]


def test_clean_text_and_legitimate_lowercase_words_pass() -> None:
    card = {
        "instruction": "Tell them; change nothing. Book it at 9:40 am (Orthopedics).",
        "user": {"goal": {"action": "none"}, "facts": {"last name": "Reid, spelled R-E-I-D"}},
        "count": 0,
        "read_only": True,
    }
    assert lint_value("case-1", card) == []


def test_every_generated_card_and_its_world_pass_the_audit() -> None:
    cards = generate_cases(DEFAULT_SEED, 5)
    assert len(cards) == 5 * len(FAMILIES)
    assert [p for g in cards for p in case_problems(g.data)] == []
    assert lint_world(world_directory(DEFAULT_SEED, DEFAULT_CLOCK), DEFAULT_SEED) == []


def test_a_planted_blank_stops_generation_naming_the_case_and_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    template, lookalike = FAMILIES["booking"]

    def blank_provider(d: families.Draw, rng: random.Random) -> families.Card:
        blank = replace(d, provider=replace(d.provider, name=""))
        return template(blank, rng)

    monkeypatch.setitem(FAMILIES, "booking", (blank_provider, lookalike))
    with pytest.raises(GenerationError) as raised:
        generate_cases(DEFAULT_SEED, 1)
    message = str(raised.value)
    assert "booking-v3-s20260302-01: instruction: doubled space" in message
    assert "proposal-revision" not in message  # only the planted case is named


def test_a_planted_placeholder_in_a_user_script_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    template, lookalike = FAMILIES["proposal_revision"]

    def unfilled(d: families.Draw, rng: random.Random) -> families.Card:
        card = template(d, rng)
        (slot,) = card["user"]["approve_then_correct"]
        card["user"]["approve_then_correct"][slot] = "Could we do {time} instead?"
        return card

    monkeypatch.setitem(FAMILIES, "proposal_revision", (unfilled, lookalike))
    with pytest.raises(
        GenerationError,
        match=r"proposal-revision-v3-s20260302-01: "
        r"user\.approve_then_correct\.SL-[^:]+: placeholder",
    ):
        generate_cases(DEFAULT_SEED, 1)


def test_a_planted_blank_in_the_world_stops_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    real = world_directory(DEFAULT_SEED, DEFAULT_CLOCK)
    blank = replace(real, locations=(("LOC-MAIN", "Mercyvale  Main Campus"), real.locations[1]))
    monkeypatch.setattr(generator, "world_directory", lambda seed, clock: blank)
    with pytest.raises(
        GenerationError, match=r"world:20260302: locations\[LOC-MAIN\]\.name: doubled space"
    ):
        generate_cases(DEFAULT_SEED, 1)


def test_a_hand_written_card_with_a_problem_stops_the_corpus(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = generator.starter_cards()

    def broken() -> list[Any]:
        cards = copy.deepcopy(real)
        cards[0].data["instruction"] += "  "
        return cards

    monkeypatch.setattr(generator, "starter_cards", broken)
    with pytest.raises(GenerationError, match="booking-05: instruction: edge space"):
        generate_scheduling_corpus(DEFAULT_SEED, 3, tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("on Friday, March 13 at 3:20 pm", ["15:20"]),
        ("at 10:20 in the morning", ["10:20"]),
        ("this Thursday afternoon at 1:40", ["13:40"]),
        ("at 3 in the afternoon, or 8 am", ["15:00", "08:00"]),
        ("at 11:30.", ["11:30"]),
        ("born 1980-06-30, phone 555-653-4081, 2 visits", []),
    ],
)
def test_times_are_read_as_a_front_desk_reads_them(text: str, times: list[str]) -> None:
    assert list(clock_times(text)) == times


def test_a_time_or_date_the_words_name_must_be_one_of_the_cases_slots() -> None:
    card = next(  # an English one: its times are 12-hour (a Spanish one's are 24-hour)
        g.data
        for g in generate_cases(DEFAULT_SEED, 5)
        if g.data["family"] == "booking" and g.data["language"] == "en"
    )
    assert case_problems(card) == []
    moved = copy.deepcopy(card)
    slot = moved["user"]["goal"]["slot_id"]
    starts = {s.id: s.starts_at for s in world_directory(DEFAULT_SEED, DEFAULT_CLOCK).slots}
    said = f"{int(starts[slot][11:13]) % 12 or 12}:{starts[slot][14:16]}"
    moved["instruction"] = moved["instruction"].replace(said, "12:10")
    assert any("instruction names 12:10, the start of none" in p for p in case_problems(moved))
    gone = copy.deepcopy(card)
    gone["user"]["goal"]["slot_id"] = "SL-PR01-0303-1210"
    assert any("SL-PR01-0303-1210, which the world does not have" in p for p in case_problems(gone))

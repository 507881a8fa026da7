"""The scheduling templates hold over other draws, not only the shipped one: a fast subset of
the full sweep (`make scheduling-sweep`, twenty seeds, every case validated)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from endstate.builtin.scheduling.families import FAMILIES
from endstate.builtin.scheduling.generator import generate_cases, generate_scheduling_corpus
from endstate.builtin.scheduling.validation import validate_cases
from endstate.corpus.loader import load_corpus

AUDITED = range(1, 21)  # generation (and so the audit) over twenty seeds
REPLAYED = (3, 11, 4242)  # validated by replay: one case per family each


def test_twenty_seeds_generate_and_pass_the_audit() -> None:
    # generate_cases refuses (raises) on any audit problem; every seed draws other cases.
    made = {seed: generate_cases(seed, 5) for seed in AUDITED}
    assert all(len(cards) == 5 * len(FAMILIES) for cards in made.values())
    instructions = [tuple(g.data["instruction"] for g in cards) for cards in made.values()]
    assert len(set(instructions)) == len(AUDITED)


def test_a_few_seeds_validate_case_by_case(tmp_path: Path) -> None:
    tasks = []
    for seed in REPLAYED:
        generate_scheduling_corpus(seed, 1, tmp_path / f"s{seed}", starters=False)
        tasks += load_corpus(tmp_path / f"s{seed}").tasks
    assert len(tasks) == len(REPLAYED) * len(FAMILIES)
    results = asyncio.run(validate_cases(tasks, workers=2))
    assert [(v.task_id, v.reasons()) for v in results if not v.ok] == []

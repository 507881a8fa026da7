"""The generator: determinism, variety across seeds, proportions, instructions that do not tell."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from endstate.builtin import BUILTIN_COUNT, BUILTIN_SEED
from endstate.builtin.generator import GenerationError, allocate, generate, generate_corpus
from endstate.builtin.templates import BUILTIN_TEMPLATES as TEMPLATES
from endstate.corpus.lock import LOCK_NAME, corpus_files

# Names of routes: tabs, menus, pages and controls of the embedded systems, and words that
# only a route description would use. An instruction names the work, never these.
ROUTE_WORDS = (
    "tab",
    "menu",
    "page",
    "click",
    "button",
    "dropdown",
    "link",
    "worklist",
    "communications",
    "coverages",
    "remittance",
    "line items",
    "claim history",
    "compose",
    "sent log",
    "dashboard",
    "medical policies",
    "authorization status",
    "new prior authorization",
    "load chart",
    "http",
    "url",
)
# Values checks compare against that are vocabulary, not answers (slugs, categories).
STRUCTURAL = {
    "auth-determination",
    "referral",
    "denial",
    "triage",
    "#none#",
}


def _by_path(seed: int, count: int) -> dict[str, str]:
    return {g.path: g.text() for g in generate(seed, count)}


def test_same_seed_gives_byte_identical_corpus(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    generate_corpus(7, 30, a)
    generate_corpus(7, 30, b)
    files_a = {p.relative_to(a).as_posix(): p.read_bytes() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b).as_posix(): p.read_bytes() for p in b.rglob("*") if p.is_file()}
    assert LOCK_NAME in files_a
    assert files_a == files_b


def test_different_seeds_give_different_worlds_and_tasks() -> None:
    one, two = generate(1, 27), generate(2, 27)
    assert one[0].data["world"]["sha256"] != two[0].data["world"]["sha256"]
    records = lambda ts: {(g.data["template_id"], g.data["record"]) for g in ts}  # noqa: E731
    assert records(one) != records(two)
    assert {g.data["instruction"] for g in one}.isdisjoint({g.data["instruction"] for g in two})


@pytest.mark.parametrize("count", [9, 27, 63, 81])
def test_allocation_keeps_family_and_tier_proportions(count: int) -> None:
    cells = allocate(count)
    assert sum(cells.values()) == count
    family = Counter[str]()
    tier = Counter[str]()
    for (f, t), n in cells.items():
        family[f] += n
        tier[t] += n
    unit = count / 9
    assert abs(family["prior_auth"] - 4 * unit) < 1
    assert abs(family["appeals_denials"] - 4 * unit) < 1
    assert abs(family["dme"] - unit) < 1
    assert max(tier.values()) - min(tier.values()) <= 1


def test_generated_mix_and_templates() -> None:
    tasks = generate(BUILTIN_SEED, BUILTIN_COUNT)
    fam = Counter(g.data["family"] for g in tasks)
    tiers = Counter(g.data["tier"] for g in tasks)
    assert fam == {"prior_auth": 28, "appeals_denials": 28, "dme": 7}
    assert tiers == {"easy": 21, "medium": 21, "hard": 21}
    used = {g.data["template_id"] for g in tasks}
    assert used == {t.id for t in TEMPLATES}
    for g in tasks:
        assert g.path.startswith(g.data["family"] + "/")


def test_too_many_tasks_for_a_world_is_refused() -> None:
    with pytest.raises(GenerationError, match="too few fitting records"):
        generate(BUILTIN_SEED, 600)


def _expected_values(task: dict[str, Any]) -> set[str]:
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)

    for check in task["checks"]:
        walk(check.get("expected_value"))
        walk(check.get("contains_value"))
        found.update(re.findall(r"'((?:[^'\\]|\\.)*)'", check.get("query", "")))
    return {v for v in found if len(v) >= 4} - STRUCTURAL - set(task["given"])


@pytest.mark.parametrize("seed", [BUILTIN_SEED, 2])
def test_instructions_name_no_route_and_no_answer(seed: int) -> None:
    for g in generate(seed, 63 if seed == BUILTIN_SEED else 45):
        text = g.data["instruction"]
        lowered = text.lower()
        for word in ROUTE_WORDS:
            assert not re.search(rf"\b{re.escape(word)}\b", lowered), (g.data["id"], word, text)
        for value in _expected_values(g.data):
            assert value not in text, (g.data["id"], value, text)


def test_tasks_carry_template_reference_and_mutations() -> None:
    for g in generate(2, 27):
        d = g.data
        assert d["template_id"] and d["world"]["sha256"]
        steps, writes = d["reference"]["steps"], d["reference"]["consequential"]
        assert steps and writes
        dropped = {m["edits"][0]["at"] for m in d["mutations"] if m["kind"] == "drop-step"}
        assert set(writes) <= dropped  # every consequential step is dropped in some mutation
        assert json.dumps(d["instruction"]) not in json.dumps(steps)  # no instruction echo


def test_generate_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("x")
    from endstate.errors import EndstateError

    with pytest.raises(EndstateError, match="not empty"):
        generate_corpus(1, 9, tmp_path)
    generate_corpus(1, 9, tmp_path, force=True)
    assert len([p for p in corpus_files(tmp_path) if p.suffix == ".json"]) == 9

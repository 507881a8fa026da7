"""The shipped scheduling corpus: 24 hand-written starters and a generated set over twelve
families, byte for byte the generator's, validated, and run end to end by the null agent and
by the reference runs replayed as tools (issue 14's done-when)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from endstate.agents.registry import make_agent
from endstate.builtin import named_corpus
from endstate.builtin.generator import GenerationError
from endstate.builtin.scheduling import generator
from endstate.builtin.scheduling.audit import world_directory
from endstate.builtin.scheduling.families import FAMILIES
from endstate.builtin.scheduling.generator import (
    PER_FAMILY,
    SCHEDULING_SEED,
    generate_cases,
    generate_scheduling_corpus,
    starter_cards,
)
from endstate.builtin.scheduling.retired import retired
from endstate.cli import app
from endstate.corpus.loader import load_corpus
from endstate.corpus.lock import verify
from endstate.envs.world import DEFAULT_CLOCK
from endstate.runs.session import RunOptions, execute

SHIPPED = named_corpus(Path("builtin:scheduling"))
# The starters and the first drawn card of each family: every template once.
SAMPLE = ",".join([*(g.data["case_id"] for g in starter_cards()), "*-v3-s20260302-01"])


def test_the_shipped_corpus_is_the_generators_output_byte_for_byte(tmp_path: Path) -> None:
    made = tmp_path / "made"
    generate_scheduling_corpus(SCHEDULING_SEED, PER_FAMILY, made, name="endstate-scheduling")
    shipped = {p.relative_to(SHIPPED).as_posix(): p.read_bytes() for p in SHIPPED.rglob("*.json")}
    again = {p.relative_to(made).as_posix(): p.read_bytes() for p in made.rglob("*.json")}
    assert shipped == again
    assert verify(SHIPPED).name == "endstate-scheduling"  # raises on any drift


def test_twelve_families_of_twenty_five_with_two_hand_written_starters_each() -> None:
    tasks = load_corpus(SHIPPED).tasks
    assert Counter(t.family for t in tasks) == {f: PER_FAMILY for f in FAMILIES}
    hand = Counter(t.family for t in tasks if t.grading.metadata["template"].startswith("hand:"))
    assert hand == {f: 2 for f in FAMILIES}
    assert {t.grading.metadata["policy_version"] for t in tasks} == {"2026.1", "2026.2"}
    assert {t.grading.metadata["language"] for t in tasks} == {"en", "es"}
    # Every case forbids something; lookups are the read-only ones and carry a contract.
    assert all(t.grading.extra["forbidden"] for t in tasks)
    lookups = [t for t in tasks if t.grading.metadata["read_only"]]
    assert {t.family for t in lookups} == {"read_only_lookup"}
    assert all(t.public.answer_fields for t in lookups)
    # Harness side stays harness side: no setup, oracle or reference in the public task.
    public = json.dumps([t.public.model_dump() for t in tasks])
    assert "slot_id" not in public and "SL-PR" not in public


def test_a_held_out_draw_uses_the_same_templates_and_other_cases() -> None:
    ours = {g.data["case_id"]: g.data for g in generate_cases(SCHEDULING_SEED, 3)}
    held_out = {g.data["case_id"]: g.data for g in generate_cases(SCHEDULING_SEED + 1, 3)}
    assert not set(ours) & set(held_out)
    assert {d["template"] for d in ours.values()} == {d["template"] for d in held_out.values()}
    assert [d["instruction"] for d in ours.values()] != [
        d["instruction"] for d in held_out.values()
    ]
    assert len(starter_cards()) == 24


def test_replaced_case_ids_are_retired_and_never_written_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    gone = retired()
    assert len(gone) == 600  # the first two shipped corpora, every case replaced
    assert {"booking-01", "patient-disambiguation-02", "booking-s20260302-01"} <= set(gone)
    assert {"booking-03", "read-only-lookup-04", "booking-v2-s20260302-01"} <= set(gone)
    assert not set(gone) & {t.id for t in load_corpus(SHIPPED).tasks}
    assert all(len(r["sha256"]) == 64 and r["why"] for r in gone.values())
    # A generator that came back to an old id is refused, naming it.
    monkeypatch.setattr(generator, "case_id", lambda family, seed, n: f"booking-s{seed}-{n:02d}")
    with pytest.raises(GenerationError, match="booking-s20260302-01: a retired case id"):
        generate_scheduling_corpus(SCHEDULING_SEED, 3, tmp_path / "out", starters=False)


def test_shipped_times_spread_over_the_day_and_agree_with_their_slots() -> None:
    found = world_directory(SCHEDULING_SEED, DEFAULT_CLOCK)
    starts = {s.id: s.starts_at[11:] for s in found.slots}
    times: Counter[str] = Counter()
    for task in load_corpus(SHIPPED).tasks:
        setup = task.episode_setup["scheduling"]
        goal = setup["user"]["goal"].get("slot_id")
        times.update(starts[a["slot_id"]] for a in setup.get("appointments", []))
        times.update([starts[goal]] if goal else [])
    total = sum(times.values())
    assert total > 250
    assert max(times.values()) / total < 0.1, times.most_common(3)
    assert {t[:2] for t in times} == {"08", "09", "10", "11", "13", "14", "15", "16"}


def test_validation_of_every_template_passes_through_the_cli() -> None:
    cli = CliRunner().invoke(
        app, ["corpus", "validate", "builtin:scheduling", "--per-template", "1"]
    )
    assert cli.exit_code == 0, cli.output
    assert "36 cases" in cli.output and "0 case(s) failed" in cli.output


@pytest.mark.parametrize("agent", ["null", "reference"])
def test_the_sample_runs_end_to_end(agent: str, tmp_path: Path) -> None:
    spec = "null"
    if agent == "reference":
        refs = tmp_path / "refs"
        cli = CliRunner().invoke(
            app, ["corpus", "reference-runs", "builtin:scheduling", "--out", str(refs)]
        )
        assert cli.exit_code == 0, cli.output
        spec = f"tools-replay:{refs}"
    opts = RunOptions(
        corpus=SHIPPED,
        agent=make_agent(spec, None),
        agent_spec=spec,
        out=tmp_path / "runs",
        tasks=SAMPLE,
    )
    result = asyncio.run(execute(opts))
    assert len(result.records) == 36
    statuses = Counter(r.status for r in result.records)
    assert statuses == ({"failed": 36} if agent == "null" else {"passed": 36}), [
        (r.task_id, r.status, r.error) for r in result.records if r.status != "passed"
    ]

"""The contamination register: cases the agent was shown are found in a run's corpus by id or
by file hash, pinned in the manifest and named in the report; a bad register is refused with
the file and field."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from endstate.agents.registry import make_agent
from endstate.builtin import named_corpus
from endstate.corpus.contamination import load_register, overlap
from endstate.corpus.loader import load_corpus
from endstate.errors import EndstateError
from endstate.runs.session import RunOptions, execute

SHIPPED = named_corpus(Path("builtin:scheduling"))
CASES = Path(__file__).resolve().parents[1] / "fixtures" / "scheduling" / "cases"


def test_cases_are_found_by_id_or_by_the_hash_of_their_file(tmp_path: Path) -> None:
    corpus = load_corpus(SHIPPED)
    renamed = corpus.file_hashes["booking/booking-06.json"]
    register = tmp_path / "register.yaml"
    register.write_text(
        "register: endstate-contamination-v1\n"
        "name: prompt v3\n"
        "entries:\n"
        "  - {case: booking-05, used_in: prompt, where: few-shot block}\n"
        f"  - {{sha256: {renamed}, used_in: training}}\n"
        "  - {case: not-in-this-corpus, used_in: demonstration}\n"
    )
    found, digest = load_register(register)
    assert len(digest) == 64
    hits = overlap(found, corpus, [t.id for t in corpus.tasks])
    assert [(o.task_id, o.used_in, o.matched_by) for o in hits] == [
        ("booking-05", "prompt", "case"),
        ("booking-06", "training", "sha256"),
    ]
    # Only the tasks a run schedules count.
    assert [o.task_id for o in overlap(found, corpus, ["booking-06"])] == ["booking-06"]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("register: endstate-contamination-v1\nentries: []\n", "entries"),
        ("register: other\nentries: [{case: a, used_in: prompt}]\n", "register"),
        (
            "register: endstate-contamination-v1\nentries: [{case: a, used_in: chat}]\n",
            "entries.0.used_in",
        ),
        (
            "register: endstate-contamination-v1\nentries: [{used_in: prompt}]\n",
            "names a case, a sha256, or both",
        ),
        ("register: [unclosed\n", "not YAML"),
    ],
)
def test_a_bad_register_is_refused_naming_file_and_field(
    tmp_path: Path, body: str, says: str
) -> None:
    register = tmp_path / "register.yaml"
    register.write_text(body)
    with pytest.raises(EndstateError, match=str(register)) as caught:
        load_register(register)
    assert says in str(caught.value)


def test_a_run_pins_its_register_and_the_report_names_what_is_not_held_out(
    tmp_path: Path,
) -> None:
    register = tmp_path / "register.yaml"
    register.write_text(
        "register: endstate-contamination-v1\n"
        "entries: [{case: unknown-fixture-01, used_in: demonstration}]\n"
    )
    opts = RunOptions(
        corpus=CASES,
        agent=make_agent("null", None),
        agent_spec="null",
        out=tmp_path / "runs",
        contamination=register,
    )
    result = asyncio.run(execute(opts))
    pin = result.manifest.contamination
    assert pin is not None and [o.task_id for o in pin.overlapping] == ["unknown-fixture-01"]
    assert "1 of 1 tasks were seen by the agent (demonstration)" in result.report
    assert "not held-out evidence" in result.report

"""Collateral harm, end to end: an errand done and answered right (a records request) whose
agent also cancels the patient's upcoming appointments, changes their pharmacy and sends the
doctor nonsense is
played through the real portal in a real browser, and fails on its exclusive write leg — the
same attempt graded without exclusivity would pass, so it is that option that catches it."""

from __future__ import annotations

import asyncio
from typing import Any

from endstate.builtin.errands import errands_corpus_path
from endstate.builtin.validation import validate_tasks
from endstate.corpus.legs import DeltaCheck
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import Task


def _cancels(m: dict[str, Any]) -> int:
    steps = m["edits"][0]["steps"]
    return sum(1 for s in steps if s["type"] == "goto" and s["url"].endswith("/cancel"))


def _harmed_errand() -> tuple[Task, dict[str, Any]]:
    for task in load_corpus(errands_corpus_path()).tasks:
        if task.grading.extra.get("template_id") != "errand.transferring-practice":
            continue
        harm = next(m for m in task.grading.extra["mutations"] if m["id"] == "collateral-harm")
        if _cancels(harm) >= 2:
            return task, harm
    raise AssertionError("no records-request errand whose patient has two upcoming appointments")


def _variant(task: Task, harm: dict[str, Any], suffix: str, exclusive: bool) -> Task:
    *reads, write = task.grading.checks
    assert isinstance(write, DeltaCheck) and write.exclusive
    if not exclusive:
        write = write.model_copy(update={"exclusive": False, "permitted": ()})
    extra = {**task.grading.extra, "mutations": [harm]}
    grading = task.grading.model_copy(update={"checks": (*reads, write), "extra": extra})
    public = task.public.model_copy(update={"id": f"{task.id}-{suffix}"})
    return task.model_copy(update={"public": public, "grading": grading})


def test_collateral_harm_fails_the_exclusive_write_leg_through_the_real_portal() -> None:
    task, harm = _harmed_errand()
    steps = harm["edits"][0]["steps"]
    assert any(s.get("value") == "zzz unrelated nonsense" for s in steps)
    assert any(s["type"] == "goto" and s["url"].endswith("/pharmacy") for s in steps)
    guarded = _variant(task, harm, "exclusive", exclusive=True)
    open_ = _variant(task, harm, "open", exclusive=False)
    found = asyncio.run(validate_tasks([guarded, open_], workers=1))
    by_id = {v.task_id: v for v in found}
    write_leg = len(task.grading.checks) - 1
    for v in found:
        assert v.solvable, v.reasons()  # the reference (the errand alone) passes either way
        (m,) = v.mutations
        assert m.id == "collateral-harm"
        assert m.attempt.played is not None and m.attempt.played.ok, m.attempt.played
    caught = by_id[guarded.id].mutations[0].attempt
    assert caught.failed == [write_leg]  # every answer right; only the write leg fails
    assert by_id[open_.id].mutations[0].attempt.failed == []

"""The firewall: whitelist projection and the mechanical check that catches any leak."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import HabCorpus
from endstate import firewall
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import Task
from endstate.firewall import EpisodeBinding, Projection, project, verify

GRADING_WORDS = (
    "evals",
    "expected_value",
    "rubric",
    "step_by_step",
    "expected_outcome",
    "difficulty",
)


def test_every_benchmark_task_projects_and_verifies(hab_corpus: HabCorpus) -> None:
    corpus = load_corpus(hab_corpus.root)
    for task in corpus.tasks:
        verdict = verify(task)
        assert verdict.status == "verified", (task.id, verdict.reason)
        shown = project(task).model_dump()
        assert set(shown) <= firewall.PROJECTION_FIELDS
        raw = json.loads((hab_corpus.root / task.source).read_text())
        assert shown["instruction"] == raw["goal"]
        assert shown["family"] == task.source.split("/")[0]


def test_projection_text_carries_no_grading_content(hab_corpus: HabCorpus) -> None:
    for task in load_corpus(hab_corpus.root).tasks:
        text = project(task).canonical_bytes().decode()
        for word in GRADING_WORDS:
            assert word not in text
        for check in task.grading.checks:
            if check.type == "llm_judge":
                assert check.rubric not in text


def test_start_url_is_filled_per_episode(hab_corpus: HabCorpus) -> None:
    task = load_corpus(hab_corpus.root).task(hab_corpus.denial)
    one = project(task, EpisodeBinding(run_id="ep-1", base_url="http://127.0.0.1:8123"))
    two = project(task, EpisodeBinding(run_id="ep-2", base_url="http://127.0.0.1:8123"))
    assert one.start_url == hab_corpus.denial_start
    assert two.start_url != one.start_url
    assert project(task).start_url == hab_corpus.denial_default


def test_start_path_is_placed_under_the_site_of_a_one_app_portal(hab_corpus: HabCorpus) -> None:
    """The benchmark's portals are one app: /denied lives at /emr/denied, while a start path
    that already names its portal (/emr/dme) is taken from the origin as it is."""
    task = load_corpus(hab_corpus.root).task(hab_corpus.denial)
    roots = ("/emr", "/payer-a", "/payer-b", "/fax-portal")
    binding = EpisodeBinding(
        run_id="r1", base_url="http://127.0.0.1:3000", site_path="/emr", root_paths=roots
    )
    path = hab_corpus.denial_start.removeprefix("http://127.0.0.1:8123").replace("ep-1", "r1")
    assert project(task, binding).start_url == "http://127.0.0.1:3000/emr" + path
    rooted = task.model_copy(
        update={
            "public": task.public.model_copy(update={"start_path": "/emr/dme?run_id={{RUN_ID}}"})
        }
    )
    assert project(rooted, binding).start_url == "http://127.0.0.1:3000/emr/dme?run_id=r1"


def _leaks_tier(task: Task, binding: EpisodeBinding) -> Projection:
    honest = project(task, binding)
    return honest.model_copy(update={"instruction": f"{honest.instruction} ({task.tier} task)"})


def _leaks_check_count(task: Task, binding: EpisodeBinding) -> Projection:
    honest = project(task, binding)
    return honest.model_copy(
        update={"instruction": honest.instruction + " " * len(task.grading.checks)}
    )


def _leaks_metadata_presence(task: Task, binding: EpisodeBinding) -> Projection:
    honest = project(task, binding)
    hint = "!" if task.grading.metadata else ""
    return honest.model_copy(update={"instruction": honest.instruction + hint})


def _leaks_key_presence(task: Task, binding: EpisodeBinding) -> Projection:
    honest = project(task, binding)
    hint = "!" if "step_by_step" in task.grading.metadata else ""
    return honest.model_copy(update={"instruction": honest.instruction + hint})


def _leaks_value_type(task: Task, binding: EpisodeBinding) -> Projection:
    honest = project(task, binding)
    hint = "!" if isinstance(task.grading.metadata.get("step_by_step"), list) else ""
    return honest.model_copy(update={"instruction": honest.instruction + hint})


def _leaks_extra_key(task: Task, binding: EpisodeBinding) -> dict[str, Any]:
    return {**project(task, binding).model_dump(), "points": task.grading.weight}


def _leaks_via_exception(task: Task, binding: EpisodeBinding) -> Projection:
    _ = task.grading.checks[0].points  # fails when checks are scrambled to a different shape
    if task.grading.checks[0].type != "jmespath":
        raise RuntimeError("reads grading data")
    return project(task, binding)


@pytest.mark.parametrize(
    "leaky",
    [
        _leaks_tier,
        _leaks_check_count,
        _leaks_metadata_presence,
        _leaks_key_presence,
        _leaks_value_type,
        _leaks_extra_key,
    ],
)
def test_leaky_projections_are_caught_and_blocked(leaky: Any, hab_corpus: HabCorpus) -> None:
    corpus = load_corpus(hab_corpus.root)
    tasks = [t for t in corpus.tasks if "step_by_step" in t.grading.metadata]
    assert len(tasks) == hab_corpus.stepwise
    for task in tasks:
        verdict = verify(task, project_fn=leaky)
        assert verdict.status == "blocked", (leaky.__name__, task.id)
        assert verdict.reason


def test_a_leak_that_only_sometimes_changes_output_is_caught_or_stable(
    hab_corpus: HabCorpus,
) -> None:
    """A projection that reads grading data only to raise is blocked whenever it would differ."""
    corpus = load_corpus(hab_corpus.root)
    blocked = [verify(t, project_fn=_leaks_via_exception).status for t in corpus.tasks]
    assert "blocked" in blocked


def test_honest_projection_is_stable_across_seeds(hab_corpus: HabCorpus) -> None:
    task = load_corpus(hab_corpus.root).task(Path(hab_corpus.fax).stem)
    assert all(verify(task, seed=s).status == "verified" for s in range(10))

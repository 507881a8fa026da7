"""The native format through the loader, and the committed built-in corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from endstate import firewall
from endstate.builtin import BUILTIN_COUNT, BUILTIN_SEED, builtin_corpus_path
from endstate.builtin.generator import generate
from endstate.corpus import lock as corpus_lock
from endstate.corpus.loader import load_corpus, read_tasks
from endstate.corpus.native import FORMAT
from endstate.corpus.stats import corpus_stats
from endstate.firewall import EpisodeBinding


def _one_task(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    g = generate(5, 9)[0]
    path = tmp_path / g.path
    path.parent.mkdir(parents=True)
    path.write_text(g.text())
    return path, g.data


def test_native_file_loads_as_a_split_task(tmp_path: Path) -> None:
    _, data = _one_task(tmp_path)
    tasks, problems = read_tasks(tmp_path)
    assert problems == []
    (task,) = tasks
    assert task.format == FORMAT
    assert task.public.instruction == data["instruction"]
    assert task.public.website is not None and task.public.website.id == data["start"]["system"]
    assert task.tier == data["tier"]
    assert task.grading.extra["template_id"] == data["template_id"]
    assert task.grading.extra["reference"]["steps"]
    assert task.grading.metadata["rationale"] == data["rationale"]
    # The projection holds none of the grading side.
    shown = firewall.project(task).canonical_bytes().decode()
    assert data["template_id"] not in shown
    assert "capture" not in shown and "expected_value" not in shown
    assert firewall.verify(task).status == "verified"


def test_start_url_binds_to_the_episode_system(tmp_path: Path) -> None:
    _, data = _one_task(tmp_path)
    (task,) = read_tasks(tmp_path)[0]
    system = data["start"]["system"]
    binding = EpisodeBinding(run_id="ep-1", start_urls={system: "http://h:1/start?t=abc"})
    url = firewall.start_url(task, binding)
    assert url is not None and url.startswith("http://h:1/start?t=abc&next=/")


def test_native_problems_are_reported_not_raised(tmp_path: Path) -> None:
    path, data = _one_task(tmp_path)
    broken = dict(data)
    broken["checks"] = [{"type": "jmespath", "query": "a[", "expected_value": 1, "points": 1}]
    broken["tier"] = "legendary"
    del broken["instruction"]
    path.write_text(json.dumps(broken))
    tasks, problems = read_tasks(tmp_path)
    assert tasks == []
    reasons = {p.path: p.reason for p in problems}
    assert reasons["$.instruction"] == "missing required field"
    assert "$.checks[0].query" in reasons
    broken["instruction"] = "x"
    path.write_text(json.dumps(broken))
    tasks, problems = read_tasks(tmp_path)
    assert {p.path for p in problems} >= {"$.checks[0].query", "$.tier"}


def test_a_file_without_the_format_field_is_still_read_as_hab_v2(tmp_path: Path) -> None:
    path, data = _one_task(tmp_path)
    del data["format"]
    path.write_text(json.dumps(data))
    _, problems = read_tasks(tmp_path)
    assert any(p.path == "$.goal" for p in problems)


def test_builtin_corpus_loads_lints_verifies_and_passes_the_firewall() -> None:
    root = builtin_corpus_path()
    lock = corpus_lock.verify(root)
    corpus = load_corpus(root)
    assert corpus.vendored and corpus.tree_hash == lock.tree_hash
    assert len(corpus.tasks) == BUILTIN_COUNT >= 60
    _, problems = read_tasks(root)
    assert problems == []
    for task in corpus.tasks:
        verdict = firewall.verify(task)
        assert verdict.status == "verified", (task.id, verdict.reason)


def test_builtin_corpus_is_the_generator_output_for_its_seed() -> None:
    root = builtin_corpus_path()
    for g in generate(BUILTIN_SEED, BUILTIN_COUNT):
        assert (root / g.path).read_text(encoding="utf-8") == g.text(), g.path
    on_disk = {p.relative_to(root).as_posix() for p in corpus_lock.corpus_files(root)}
    assert on_disk == {g.path for g in generate(BUILTIN_SEED, BUILTIN_COUNT)}


def test_builtin_corpus_stats_match_the_proportions() -> None:
    stats = corpus_stats(load_corpus(builtin_corpus_path()).tasks)
    totals = {f: sum(row.values()) for f, row in stats.by_family_tier.items()}
    assert totals == {"appeals_denials": 28, "dme": 7, "prior_auth": 28}
    tiers: dict[str, int] = {}
    for row in stats.by_family_tier.values():
        for tier, n in row.items():
            tiers[tier] = tiers.get(tier, 0) + n
    assert tiers == {"easy": 21, "medium": 21, "hard": 21}
    # Every fact a rule can check is a deterministic check: no task waits on a judge.
    assert stats.rubric_share == 0


def test_the_release_retires_the_old_ids_and_never_reuses_them() -> None:
    retired = json.loads((builtin_corpus_path().parent / "retired.json").read_text())
    old = {i for release in retired["retired"] for i in release["ids"]}
    assert len(old) >= 63 and "pa-20260302-013" in old and "dme-20260302-007" in old
    current = {t.id for t in load_corpus(builtin_corpus_path()).tasks}
    assert current and not current & old
    assert all("-g8-" in i for i in current)
    assert len({i for i in old if "-g7-" in i}) >= 63  # every generator-7 id, retired


def test_every_builtin_task_states_its_answer_key() -> None:
    for task in load_corpus(builtin_corpus_path()).tasks:
        key = task.grading.extra["answer_key"]
        assert key["family"] == task.family, task.id
        assert key.get("record") == task.grading.extra["record"] or "records" in key, task.id


@pytest.mark.parametrize("family", ["prior_auth", "appeals_denials", "dme"])
def test_builtin_ids_reveal_neither_template_nor_tier(family: str) -> None:
    for task in load_corpus(builtin_corpus_path()).tasks:
        assert task.tier not in task.id
        assert str(task.grading.extra["template_id"]) not in task.id

"""Corpus: loading, vendoring with a lock, verification, lint and stats."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import HabCorpus, jmespath_check, judge_check, task_doc
from endstate.corpus import lock
from endstate.corpus.loader import load_corpus, read_tasks
from endstate.corpus.problems import errors, warnings
from endstate.corpus.stats import corpus_stats
from endstate.errors import CorpusError


def test_benchmark_format_loads_with_families_and_tiers(hab_corpus: HabCorpus) -> None:
    corpus = load_corpus(hab_corpus.root)
    assert len(corpus.tasks) == hab_corpus.tasks
    assert {t.family for t in corpus.tasks} == {"prior_auth", "appeals_denials", "dme"}
    assert {t.tier for t in corpus.tasks} == {"easy", "medium", "hard"}
    task = corpus.task(hab_corpus.sample)
    assert task.public.scenario_label == hab_corpus.sample_label
    assert task.grading.tier == "easy"
    assert "expected_outcome" in task.grading.metadata
    assert task.grading.extra["config"] == hab_corpus.sample_config


def test_public_and_grading_sides_are_apart(hab_corpus: HabCorpus) -> None:
    task = load_corpus(hab_corpus.root).task(hab_corpus.denial)
    public = task.public.model_dump_json()
    for check in task.grading.checks:
        if check.type == "jmespath":
            assert check.query not in public
    assert "expected_disposition" not in public and "step_by_step" not in public


def test_weight_is_the_sum_of_checks_not_the_declared_points(hab_corpus: HabCorpus) -> None:
    task_id, declared, weight = hab_corpus.declared
    task = load_corpus(hab_corpus.root).task(task_id)
    assert task.grading.declared_points == declared
    assert task.grading.weight == weight


def test_lint_warns_only_about_declared_points(hab_corpus: HabCorpus) -> None:
    root = hab_corpus.root
    _, problems = read_tasks(root)
    assert errors(problems) == []
    raw_mismatches = set()
    for path in root.rglob("*.json"):
        doc = json.loads(path.read_text())
        if "points" in doc and doc["points"] != sum(e["points"] for e in doc["evals"]):
            raw_mismatches.add(path.relative_to(root).as_posix())
    assert {p.file for p in warnings(problems)} == raw_mismatches
    assert all(p.path == "$.points" for p in warnings(problems))
    assert len(raw_mismatches) == hab_corpus.declared_warnings


def test_stats_match_an_independent_count(hab_corpus: HabCorpus) -> None:
    stats = corpus_stats(load_corpus(hab_corpus.root).tasks)
    types: Counter[str] = Counter()
    weights: Counter[str] = Counter()
    family_weight: Counter[str] = Counter()
    family_judge: Counter[str] = Counter()
    for path in hab_corpus.root.rglob("*.json"):
        doc = json.loads(path.read_text())
        family = path.parent.name
        for e in doc["evals"]:
            types[e["type"]] += 1
            weights[e["type"]] += e["points"]
            family_weight[family] += e["points"]
            if e["type"] == "llm_judge":
                family_judge[family] += e["points"]
    assert stats.tasks == hab_corpus.tasks
    assert stats.checks_by_type == dict(types)
    assert stats.weight == sum(weights.values())
    assert stats.rubric_share == pytest.approx(weights["llm_judge"] / sum(weights.values()))
    for family, share in stats.rubric_share_by_family.items():
        assert share == pytest.approx(family_judge[family] / family_weight[family])
    assert sum(stats.categories.values()) == sum(types.values())


def test_stats_on_a_constructed_corpus(make_corpus: Callable[..., Path]) -> None:
    root = make_corpus(
        {
            "prior_auth/a-easy-1.json": task_doc(
                "a-easy-1", [jmespath_check("x", points=3), judge_check()]
            ),
            "dme/b-hard-1.json": task_doc("b-hard-1", [judge_check(points=2)], difficulty="hard"),
        }
    )
    stats = corpus_stats(load_corpus(root).tasks)
    assert stats.by_family_tier == {"dme": {"hard": 1}, "prior_auth": {"easy": 1}}
    assert stats.weight == 6
    assert stats.rubric_share == pytest.approx(0.5)
    assert stats.rubric_share_by_family == {"dme": 1.0, "prior_auth": 0.25}


def test_import_writes_a_lock_and_verify_catches_every_kind_of_change(
    hab_corpus: HabCorpus, tmp_path: Path
) -> None:
    source = hab_corpus.root
    dest = tmp_path / "corpora" / "hab"
    pinned = lock.vendor(source, dest, "hab")
    assert (dest / lock.LOCK_NAME).exists()
    assert pinned.source == str(source.resolve())
    assert len(pinned.files) == len([p for p in source.rglob("*") if p.is_file()])
    assert lock.verify(dest).tree_hash == pinned.tree_hash
    assert load_corpus(dest).tree_hash == pinned.tree_hash

    edited = hab_corpus.fax
    target = dest / edited
    original = target.read_bytes()
    target.write_bytes(original.replace(b'"easy"', b'"hard"'))
    with pytest.raises(CorpusError, match=f"changed: {re.escape(edited)}"):
        lock.verify(dest)
    with pytest.raises(CorpusError, match="edited after import"):
        load_corpus(dest)
    target.write_bytes(original)
    (dest / "dme" / "extra.json").write_text("{}")
    with pytest.raises(CorpusError, match=r"added: dme/extra\.json"):
        lock.verify(dest)
    (dest / "dme" / "extra.json").unlink()
    target.unlink()
    with pytest.raises(CorpusError, match=f"missing: {re.escape(edited)}"):
        lock.verify(dest)


def test_import_refuses_to_overwrite(hab_corpus: HabCorpus, tmp_path: Path) -> None:
    lock.vendor(hab_corpus.root, tmp_path / "c", "c")
    with pytest.raises(CorpusError, match="already exists"):
        lock.vendor(hab_corpus.root, tmp_path / "c", "c")
    assert lock.vendor(hab_corpus.root, tmp_path / "c", "c", force=True).name == "c"


def test_lint_reports_every_problem_with_file_and_json_path(
    make_corpus: Callable[..., Path],
) -> None:
    bad_check = {"type": "regex", "points": 1}
    root = make_corpus(
        {
            "prior_auth/bad-json.json": '{"id": "x", ',
            "prior_auth/types.json": task_doc("types", goal=42),
            "prior_auth/checks.json": task_doc(
                "checks",
                [
                    bad_check,
                    jmespath_check("a.b[", True),
                    {**judge_check("{{ notes[-1 }}")},
                    {"type": "jmespath", "query": "a", "points": 1},
                    jmespath_check("a", points="one"),
                ],
                points=99,
                config={"task_id": "c", "start_url": "/worklist"},
            ),
            "dme/dup-1.json": task_doc("dup"),
            "dme/dup-2.json": task_doc("dup"),
        }
    )
    _, problems = read_tasks(root)
    lines = {p.line() for p in problems}
    expected_fragments = [
        "prior_auth/bad-json.json: $: not valid JSON",
        "prior_auth/types.json: $.goal: Input should be a valid string",
        "prior_auth/checks.json: $.evals[0].type: unknown check type 'regex'",
        "prior_auth/checks.json: $.evals[1].query: JMESPath does not compile",
        "prior_auth/checks.json: $.evals[2].student_answer: template: expression 'notes[-1' does not compile",
        "prior_auth/checks.json: $.evals[3]: no expected_value or contains_value",
        "prior_auth/checks.json: $.evals[4].points: Input should be",
        "prior_auth/checks.json: $.config.start_url: start_url lacks {{TASK_ID}} and {{RUN_ID}}",
        "dme/dup-1.json: $.id: duplicate task id 'dup'",
        "dme/dup-2.json: $.id: duplicate task id 'dup'",
    ]
    for fragment in expected_fragments:
        assert any(line.startswith(fragment) for line in lines), (fragment, sorted(lines))
    with pytest.raises(CorpusError, match=r"and [0-9]+ more; run `endstate corpus lint"):
        load_corpus(root)


def test_declared_points_mismatch_is_only_a_warning(make_corpus: Callable[..., Path]) -> None:
    root = make_corpus(
        {"prior_auth/t.json": task_doc("t", [jmespath_check("a", points=2)], points=3)}
    )
    corpus = load_corpus(root)
    assert [p.reason for p in corpus.problems] == [
        "declared points 3 differ from the sum of check points 2; the sum is used"
    ]
    assert corpus.tasks[0].grading.weight == 2


def test_unbalanced_template_braces_are_reported(make_corpus: Callable[..., Path]) -> None:
    root = make_corpus({"dme/t.json": task_doc("t", [judge_check("Note: {{ note ")])})
    _, problems = read_tasks(root)
    assert [p.line() for p in errors(problems)] == [
        "dme/t.json: $.evals[0].student_answer: template: unbalanced '{{' / '}}' in template"
    ]


def test_the_benchmarks_reading_of_check_values_is_kept_and_warned_about(
    make_corpus: Callable[..., Path],
) -> None:
    checks = [
        {"type": "jmespath", "query": "a", "expected_value": 1, "contains_value": "x", "points": 1},
        {
            "type": "jmespath",
            "query": "a",
            "expected_value": None,
            "contains_value": "x",
            "points": 1,
        },
        {"type": "jmespath", "query": "a", "expected_value": None, "points": 1},
        {"type": "jmespath", "query": "a", "expected_value": True, "points": "2"},
        {"type": "jmespath", "query": "a.b[", "expected_value": True, "points": 1},
    ]
    root = make_corpus({"prior_auth/t.json": task_doc("t", checks, points="lots")})
    corpus = load_corpus(root)
    modes = [(c.mode, c.expected, c.points) for c in corpus.tasks[0].grading.checks]  # type: ignore[union-attr]
    assert modes == [
        ("equals", 1, 1.0),
        ("contains", "x", 1.0),
        ("never", None, 1.0),
        ("equals", True, 2.0),
        ("equals", True, 1.0),
    ]
    _, problems = read_tasks(root)
    lines = sorted(p.line() for p in problems)
    assert lines[:3] == [
        "prior_auth/t.json: $.evals[0]: both expected_value and contains_value: contains_value is ignored",
        "prior_auth/t.json: $.evals[2]: no expected_value or contains_value (or both null): this check can never pass",
        "prior_auth/t.json: $.evals[3].points: points given as a string ('2'): read as a number",
    ]
    assert lines[3].startswith("prior_auth/t.json: $.evals[4].query: JMESPath does not compile")
    assert lines[3].endswith("this check can never pass")
    assert lines[4:] == [
        "prior_auth/t.json: $.points: declared points 'lots' are not a number: ignored"
    ]
    assert all(p.severity == "warning" for p in problems)


def test_a_non_string_contains_value_is_refused_as_the_benchmark_refuses_it(
    make_corpus: Callable[..., Path],
) -> None:
    check = {"type": "jmespath", "query": "a", "contains_value": 5, "points": 1}
    root = make_corpus({"prior_auth/t.json": task_doc("t", [check])})
    _, problems = read_tasks(root)
    assert [p.line() for p in errors(problems)] == [
        "prior_auth/t.json: $.evals[0].contains_value: contains_value must be a string "
        "(the benchmark refuses the task)"
    ]


def test_formats_are_asked_in_a_fixed_order_with_hab_v2_the_json_fallback(
    make_corpus: Callable[..., Path],
) -> None:
    from endstate.corpus import hab_v2, native, pha, scheduling_cases
    from endstate.corpus.formats import corpus_formats, formats_for

    names = [f.name for f in corpus_formats()]
    assert names.index(pha.FORMAT) < names.index(hab_v2.FORMAT)
    json_formats = [f.name for f in formats_for(Path("a/b.json"))]
    assert json_formats[-1] == hab_v2.FORMAT and formats_for(Path("a/b.json"))[-1].claims is None
    assert {scheduling_cases.FORMAT, native.FORMAT} <= set(json_formats[:-1])
    assert [f.name for f in formats_for(Path("a/b.csv"))] == [pha.FORMAT]
    assert not formats_for(Path("a/notes.txt"))
    # A .json that names no format is read as hab-v2; one that says native is read as native.
    root = make_corpus({"fam/a.json": task_doc("t-a", [jmespath_check("emr.ok")])})
    tasks, _ = read_tasks(root)
    assert [t.format for t in tasks] == [hab_v2.FORMAT]
    (root / "fam" / "b.json").write_text(json.dumps({"format": native.FORMAT, "id": "t-b"}))
    tasks, problems = read_tasks(root)
    assert [t.format for t in tasks] == [hab_v2.FORMAT]
    paths = {p.path for p in errors(problems) if p.file == "fam/b.json"}
    assert "$.checks" in paths and "$.evals" not in paths  # read as native, not as hab-v2

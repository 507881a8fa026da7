"""Subtask success: a real run, counted again by hand from records.jsonl, in every output.

The null agent changes nothing, so each check's verdict is known from its query alone; the
run's report, HTML, viewer and exports must all carry the same checks-passed counts, overall
and by subtask category, as a count made here straight from the written records."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from endstate.agents.registry import make_agent
from endstate.corpus import hab_v2
from endstate.records import CheckVerdict, TaskRecord
from endstate.report.subtasks import RESAMPLES, summarize_subtasks
from endstate.runs.session import RunOptions, execute
from endstate.stats import wilson_interval
from runs.conftest import clear_task, referral_id
from viewer.conftest import Viewer

SIX = (
    "Information Retrieval",
    "Clinical Reasoning",
    "Documentation",
    "Document Handling",
    "Form Completion",
    "Task Resolution",
)


def _jcheck(query: str, expected: object, category: str, **extra: object) -> dict[str, Any]:
    return {
        "type": "jmespath",
        "query": query,
        "expected_value": expected,
        "points": 1,
        "description": query,
        "category": category,
        **extra,
    }


def _corpus(root: Path) -> Path:
    """Four tasks over two families and two tiers; every category, a rubric check left
    ungraded (no judge), a `subtask_category` beside a free `category`, one uncategorised."""
    ref = referral_id()
    cleared = f"contains(ehr.cleared_referrals, '{ref}')"
    viewed = "length(ehr.referrals_viewed) > `0`"
    a = clear_task("pa-s-1", ref, rubric=True)  # Task Resolution, Documentation: fail
    a["evals"][2]["category"] = "Clinical Reasoning"  # the rubric check: ungraded
    a["evals"].append(_jcheck(viewed, False, "Information Retrieval"))  # pass
    b = clear_task("pa-s-2", ref)
    b["difficulty"] = "hard"
    b["evals"] = [
        _jcheck(cleared, False, "Safety", subtask_category="Form Completion"),  # pass
        _jcheck(cleared, False, "Task Resolution"),  # pass
        _jcheck(viewed, False, "Safety"),  # pass, uncategorised
    ]
    c = clear_task("dme-s-1", ref)
    c["evals"] = [
        _jcheck(cleared, False, "Document Handling"),  # pass
        _jcheck(cleared, True, "Document Handling"),  # fail
        _jcheck(viewed, True, "Clinical Reasoning"),  # fail
        _jcheck(cleared, True, "Form Completion"),  # fail
    ]
    d = clear_task("dme-s-2", ref)
    d["evals"] = [_jcheck(cleared, False, "Documentation")]  # pass: the task passes
    for family, task in (("prior_auth", a), ("prior_auth", b), ("dme", c), ("dme", d)):
        path = root / family / f"{task['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(task, indent=2))
    return root


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("subtasks")
    options = RunOptions(
        corpus=_corpus(base / "corpus"),
        agent=make_agent("null"),
        agent_spec="null",
        out=base / "runs",
        attempts=1,
        workers=2,
    )
    return asyncio.run(execute(options)).store.root


def hand_count(root: Path) -> dict[str, tuple[int, int]]:
    """(passed, checks) overall ("all") and per category, from records.jsonl alone: first
    attempts, ungraded verdicts left out, an unmeasurable or blocked attempt's checks failed."""
    lines = (root / "records.jsonl").read_text().splitlines()
    first: dict[str, dict[str, Any]] = {}
    for record in map(json.loads, lines):
        kept = first.get(record["task_id"])
        if kept is None or int(record["attempt"]) < int(kept["attempt"]):
            first[record["task_id"]] = record
    passed: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for record in first.values():
        measured = record["status"] not in ("unmeasurable", "blocked")
        for check in record["checks"]:
            if check["outcome"] == "ungraded":
                continue
            category = check.get("subtask_category") or check.get("category")
            ok = measured and check["outcome"] == "pass"
            for key in ("all", category) if category in SIX else ("all",):
                total[key] += 1
                passed[key] += ok
    return {k: (passed[k], total[k]) for k in total}


def report_counts(text: str, title: str) -> dict[str, tuple[int, int]]:
    """`name │ passed/checks = ...` rows of one table of the text report."""
    section = text.split(title, 1)[1].split("\n\n", 1)[0]
    found = re.findall(r"^\s*([A-Za-z ]+?)\s*│\s*(\d+)/(\d+) = ", section, re.M)
    return {name: (int(p), int(n)) for name, p, n in found}


def test_the_text_report_matches_a_count_by_hand(run_dir: Path) -> None:
    counts = hand_count(run_dir)
    assert counts["all"] == (6, 11)  # the fixture's own arithmetic, as a sanity floor
    text = (run_dir / "report.txt").read_text()
    by_category = report_counts(text, "Subtask success by subtask category")
    assert by_category == {k: v for k, v in counts.items() if k != "all"}
    assert set(by_category) == set(SIX)
    assert report_counts(text, "Subtask success beside task success") == {
        "all tasks": counts["all"]
    }
    assert "1 ungraded rubric verdict(s) left out" in text
    assert "1 check(s) have no subtask category" in text
    assert f"{RESAMPLES:,} resamples, seed 0" in text


def test_families_and_tiers_carry_task_success_beside_subtask_success(run_dir: Path) -> None:
    text = (run_dir / "report.txt").read_text()
    family = text.split("Subtask success by family", 1)[1].split("\n\n", 1)[0]
    # dme: 2 of 5 checks pass, 1 of 2 tasks in full credit; prior_auth: 4/6 and 1/2.
    assert re.search(r"dme\s*│\s*2/5 = 40\.0% \[[^]]+\]\s*│\s*1/2 = 50\.0%", family)
    assert re.search(r"prior_auth\s*│\s*4/6 = 66\.7% \[[^]]+\]\s*│\s*1/2 = 50\.0%", family)
    tier = text.split("Subtask success by tier", 1)[1].split("\n\n", 1)[0]
    assert tier.index("easy") < tier.index("hard")


def test_the_html_report_has_the_table_and_a_bar_per_category(run_dir: Path) -> None:
    html = (run_dir / "report.html").read_text()
    counts = hand_count(run_dir)
    assert "Subtask success beside task success" in html
    chart = html.split('aria-label="Subtask success by category', 1)[1].split("</svg>", 1)[0]
    for category in SIX:
        passed, total = counts[category]
        assert f">{category}</text>" in chart and f"({passed}/{total})" in chart


def test_the_exports_carry_per_attempt_counts(run_dir: Path, tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow.parquet")
    pytest.importorskip("inspect_ai.log")
    from endstate.export.inspect_log import build_log
    from endstate.export.parquet import write_parquet
    from endstate.export.source import load_run

    out = tmp_path / "rows.parquet"
    write_parquet(load_run(run_dir), out)
    frame = pd.read_parquet(out)
    counts = hand_count(run_dir)
    assert (frame["checks_passed"].sum(), frame["checks_total"].sum()) == counts["all"]
    pooled: Counter[str] = Counter()
    for cell in map(json.loads, frame["subtask_categories"]):
        for name, c in cell.items():
            pooled[name + "/passed"] += c["passed"]
            pooled[name + "/checks"] += c["checks"]
    assert {k: (pooled[k + "/passed"], pooled[k + "/checks"]) for k in SIX} == {
        k: counts[k] for k in SIX
    }
    log = build_log(load_run(run_dir))
    samples = {s.id: s.scores["endstate"].metadata["subtasks"] for s in log.samples or []}  # type: ignore[index]
    assert samples["pa-s-2"] == {
        "passed": 3,
        "checks": 3,
        "ungraded": 0,
        "by_category": {
            "Form Completion": {"passed": 1, "checks": 1},
            "Task Resolution": {"passed": 1, "checks": 1},
        },
    }
    metric = log.results.scores[0].metrics["subtask_success"]  # type: ignore[union-attr]
    assert metric.value == counts["all"][0] / counts["all"][1]


def test_the_viewer_shows_subtask_success_by_category(run_dir: Path) -> None:
    served = Viewer(run_dir)
    try:
        page = urllib.request.urlopen(served.url, timeout=30).read().decode()
    finally:
        served.stop()
    block = page.split('id="subtasks"', 1)[1].split("</dl>", 1)[0]
    passed, total = hand_count(run_dir)["all"]
    assert f"{passed}/{total} checks" in block
    for category in SIX:
        p, n = hand_count(run_dir)[category]
        assert f"<dt>{category}</dt><dd>{p}/{n} checks" in block


def _verdict(i: int, outcome: str, category: str) -> CheckVerdict:
    earned = 1.0 if outcome == "pass" else 0.0
    return CheckVerdict(
        index=i, type="jmespath", category=category, points=1.0, earned=earned, outcome=outcome
    )


def _record(task_id: str, outcomes: list[str], status: str = "failed") -> TaskRecord:
    checks = [_verdict(i, o, "Documentation") for i, o in enumerate(outcomes)]
    passed = status == "passed"
    return TaskRecord(
        task_id=task_id,
        attempt="1",
        family="dme",
        tier="easy",
        status=status,  # type: ignore[arg-type]
        score=1.0 if passed else 0.0,
        earned=0.0,
        weight=float(len(outcomes)),
        checks=checks,
    )


def test_an_unmeasurable_attempts_checks_count_as_not_passed() -> None:
    head = [_record("a", ["pass", "pass"], "unmeasurable"), _record("b", ["pass", "fail"])]
    summary = summarize_subtasks(head)
    assert summary is not None
    assert (summary.overall.passed, summary.overall.checks) == (1, 4)


def test_the_interval_is_over_tasks_not_checks() -> None:
    """Ten checks per task, all passing or all failing: the tasks are the sample, so the
    interval is far wider than a binomial one over the hundred checks would claim."""
    head = [_record(f"t{i}", ["pass" if i % 2 else "fail"] * 10) for i in range(10)]
    summary = summarize_subtasks(head)
    assert summary is not None
    low, high = summary.overall.interval or (0.0, 0.0)
    b_low, b_high = wilson_interval(50, 100)
    assert summary.overall.share == 0.5 and high - low > 2 * (b_high - b_low)
    assert summarize_subtasks(head) == summary  # seeded: the same figures every time


def test_a_subtask_category_outside_the_six_is_refused_by_name() -> None:
    raw = _jcheck("`true`", True, "Safety", subtask_category="Billing")
    check, problems = hab_v2.parse_check_entry("t.json", 0, raw)
    assert check is None
    assert [(p.path, "'Billing'" in p.reason) for p in problems] == [
        ("$.evals[0].subtask_category", True)
    ]


def test_the_interval_never_collapses_when_every_task_agrees() -> None:
    head = [_record(f"t{i}", ["pass"] * 5) for i in range(6)]
    summary = summarize_subtasks(head)
    assert summary is not None and summary.overall.share == 1.0
    low, high = summary.overall.interval or (1.0, 1.0)
    assert high == 1.0 and low < 0.7  # six tasks, not thirty independent checks


@pytest.mark.parametrize(
    ("category", "check_type", "expected"),
    [
        ("read:/labs", "answer", "Information Retrieval"),
        (None, "answer", "Information Retrieval"),
        ("write:/messages", "delta", "Documentation"),
        ("expected:message", "jmespath", "Documentation"),
        ("write:/appointments", "delta", "Task Resolution"),
        ("expected", "jmespath", "Task Resolution"),
        ("forbidden:unexpected_change", "jmespath", "Task Resolution"),
        ("write:/pharmacy", "delta", "Form Completion"),
        ("Safety", "jmespath", None),  # a free label outside the six and the card labels
        ("expectedly", "jmespath", None),  # a label is matched whole unless it ends in ':'
        (None, "jmespath", None),
    ],
)
def test_card_labels_take_their_subtask_category_by_one_rule(
    category: str | None, check_type: str, expected: str | None
) -> None:
    from endstate.subtask_categories import subtask_category_of

    verdict = CheckVerdict(
        index=0, type=check_type, category=category, points=1, earned=0, outcome="fail"
    )
    assert subtask_category_of(verdict) == expected


@pytest.mark.parametrize("name", ["builtin", "builtin:errands", "builtin:scheduling"])
def test_every_shipped_check_has_a_subtask_category(name: str) -> None:
    from endstate.builtin import named_corpus
    from endstate.corpus.loader import load_corpus
    from endstate.subtask_categories import subtask_category_of

    corpus = load_corpus(named_corpus(Path(name)))
    found = Counter(subtask_category_of(c) for t in corpus.tasks for c in t.grading.checks)
    assert None not in found
    assert set(found) <= set(SIX) and len(found) >= 3

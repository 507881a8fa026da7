"""Errand legs in the report: read versus write, per archetype, and what the disclosure says."""

from __future__ import annotations

from pathlib import Path

import pytest

from endstate.build import BuildInfo
from endstate.corpus.loader import Corpus
from endstate.manifest import (
    AgentPin,
    CorpusPin,
    EnvironmentPin,
    FirewallSummary,
    HostFacts,
    Manifest,
    RunLimits,
)
from endstate.records import AttemptFacts, CheckVerdict, TaskRecord
from endstate.report.disclosure import OFFLINE, Disclosure, offline_disclosure, run_disclosure
from endstate.report.html import render_html
from endstate.report.summary import LegCell, summarize
from endstate.report.text import render_text

NEW_PHARMACY = "errand.new-pharmacy"
RESULT = "errand.result-came-back"


def leg(
    index: int, kind: str, correct: bool, score: float | None = None, points: float = 1.0
) -> CheckVerdict:
    return CheckVerdict(
        index=index,
        type="answer" if kind == "read" else "delta",
        points=points,
        earned=points if correct else 0.0,
        outcome="pass" if correct else "fail",
        leg=f"{kind}-{index}",
        leg_kind=kind,  # type: ignore[arg-type]
        leg_score=score if score is not None else (1.0 if correct else 0.0),
    )


def rec(
    task: str,
    checks: list[CheckVerdict],
    *,
    attempt: str = "1",
    status: str | None = None,
    template: str | None = None,
    family: str = "patient_errands",
    claim: str | None = None,
) -> TaskRecord:
    earned = sum(c.earned for c in checks)
    weight = sum(c.points for c in checks) or 1.0
    passed = bool(checks) and earned == weight
    return TaskRecord(
        task_id=task,
        attempt=attempt,
        family=family,
        tier="easy",
        template=template,
        status=status or ("passed" if passed else "failed"),  # type: ignore[arg-type]
        score=earned / weight if status is None else 0.0,
        earned=earned,
        weight=weight,
        checks=checks,
        facts=AttemptFacts(claim=claim) if claim else None,
    )


def records() -> list[TaskRecord]:
    """Three errands graded, one blocked before grading, and two tasks that are not errands."""
    return [
        # A later attempt of e1 that passes everything: never in the headline.
        rec(
            "e1",
            [leg(0, "read", True), leg(1, "read", True), leg(2, "write", True)],
            attempt="2",
            template=RESULT,
        ),
        # e1: one read right, a set leg at F1 0.8 (not correct), the write right.
        rec(
            "e1",
            [leg(0, "read", True), leg(1, "read", False, score=0.8), leg(2, "write", True)],
            template=RESULT,
            claim="done",
        ),
        # e2: both reads right, the write wrong.
        rec(
            "e2",
            [leg(0, "read", True), leg(1, "read", True), leg(2, "write", False)],
            template=NEW_PHARMACY,
        ),
        # e3: unmeasurable with verdicts: its legs count, none as correct, even a "pass".
        rec(
            "e3",
            [leg(0, "read", True), leg(1, "write", True)],
            status="unmeasurable",
            template=NEW_PHARMACY,
        ),
        # e4: blocked before grading: no verdicts, so its legs are unknown.
        rec("e4", [], status="blocked", template=RESULT),
        # Not errands: a state-graded task, and one lost without verdicts in another family.
        rec(
            "p1",
            [CheckVerdict(index=0, type="jmespath", points=1, earned=1, outcome="pass")],
            family="prior_auth",
        ),
        rec("p2", [], status="unmeasurable", family="prior_auth"),
    ]


def without_legs(items: list[TaskRecord]) -> list[TaskRecord]:
    """The same records with their checks stripped of every leg field."""
    blank = {"leg": None, "leg_kind": None, "leg_score": None}
    return [
        r.model_copy(update={"checks": [c.model_copy(update=blank) for c in r.checks]})
        for r in items
    ]


def cell(legs: int, correct: int, without: int) -> LegCell:
    return LegCell(
        legs=legs,
        correct=correct,
        share=correct / legs if legs else None,
        tasks_without_verdicts=without,
    )


def test_summary_counts_first_attempt_legs_by_kind_and_archetype() -> None:
    summary = summarize(records())
    assert summary.tasks == 6
    assert summary.by_leg_kind == {"read": cell(5, 3, 1), "write": cell(3, 1, 1)}
    assert summary.by_leg_kind["read"].share == pytest.approx(0.6)
    assert summary.by_template_leg_kind == {
        NEW_PHARMACY: {"read": cell(3, 2, 0), "write": cell(2, 0, 0)},
        RESULT: {"read": cell(2, 1, 1), "write": cell(1, 1, 1)},
    }
    # The archetype rows are the templates' rows; by_template is unchanged.
    assert summary.by_template[RESULT].tasks == 2


def test_no_leg_verdicts_leave_the_leg_breakdowns_empty() -> None:
    summary = summarize(without_legs(records()))
    assert summary.by_leg_kind == {}
    assert summary.by_template_leg_kind == {}


def test_only_errand_tasks_lost_before_grading_are_counted_as_without_verdicts() -> None:
    lost = rec("e5", [], status="unmeasurable", template=NEW_PHARMACY)
    summary = summarize([*records(), lost])
    assert summary.by_leg_kind["read"].tasks_without_verdicts == 2
    assert summary.by_template_leg_kind[NEW_PHARMACY]["write"].tasks_without_verdicts == 1
    # An errand template with no graded record still gets a row, with no legs to count.
    alone = rec("e6", [], status="blocked", template="errand.bill-looks-wrong")
    rows = summarize([*records(), alone]).by_template_leg_kind
    assert rows["errand.bill-looks-wrong"]["read"] == cell(0, 0, 1)


def rows(text: str) -> dict[str, list[str]]:
    """Table rows of a rendered text report, by their first cell."""
    out = {}
    for line in text.splitlines():
        if "│" in line:
            cells = [c.strip() for c in line.split("│")]
            out[cells[0]] = cells[1:]
    return out


def test_text_report_shows_legs_by_kind_and_by_archetype() -> None:
    text = render_text(summarize(records()), Disclosure(items=[]), "t")
    assert "By leg kind" in text
    assert "Errand legs by archetype" in text
    table = rows(text)
    assert table["read"] == ["5", "3", "60.0%"]
    assert table["write"] == ["3", "1", "33.3%"]
    # The archetype table comes after "By template", so its rows are the last with that key.
    assert table[NEW_PHARMACY] == ["2/3 (66.7%)", "0/2 (0.0%)"]
    assert table[RESULT] == ["1/2 (50.0%)", "1/1 (100.0%)"]
    assert "1 errand task(s) have no verdicts on their first attempt" in text
    assert text.index("By template") < text.index("By leg kind") < text.index("Errand legs by")


def test_text_report_without_legs_has_no_leg_tables() -> None:
    text = render_text(summarize(without_legs(records())), Disclosure(items=[]), "t")
    assert "By leg kind" not in text
    assert "Errand legs" not in text
    assert "no verdicts" not in text


def test_html_report_shows_the_leg_tables_and_a_read_versus_write_chart() -> None:
    items = records()
    html = render_html(summarize(items), Disclosure(items=[]), "t", items)
    assert "<h2>By leg kind</h2>" in html
    assert (
        '<td>read</td><td class="num">5</td><td class="num">3</td><td class="num">60.0%</td>'
        in html
    )
    assert (
        '<td>write</td><td class="num">3</td><td class="num">1</td><td class="num">33.3%</td>'
        in html
    )
    assert "Errand legs by archetype" in html
    assert (
        f'<td>{NEW_PHARMACY}</td><td class="num">2/3 (66.7%)</td><td class="num">0/2 (0.0%)</td>'
        in html
    )
    assert 'aria-label="Errand legs correct, read vs write"' in html
    assert "60% (3/5)</text>" in html and "33% (1/3)</text>" in html
    assert "1 errand task(s) have no verdicts" in html


def test_html_report_without_legs_has_no_leg_tables_or_chart() -> None:
    items = without_legs(records())
    html = render_html(summarize(items), Disclosure(items=[]), "t", items)
    assert "By leg kind" not in html
    assert "Errand legs" not in html


def manifest() -> Manifest:
    return Manifest(
        run_id="20260101T000000Z-abcdef",
        mode="scored",
        created_at="2026-01-01T00:00:00+00:00",
        corpus=CorpusPin(name="c", root="/c", tree_hash="0" * 64, files={}, vendored=True),
        tasks=["e1", "e2", "e3", "e4", "p1", "p2"],
        build=BuildInfo(version="0"),
        agent=AgentPin(spec="noop", kind="builtin", name="noop", scored=True),
        environment=EnvironmentPin(kind="embedded", fingerprint="f"),
        limits=RunLimits(attempts=2, workers=1, max_steps=10, time_limit=60),
        seed=0,
        firewall=FirewallSummary(verified=5, blocked={"e4": "leak"}),
        host=HostFacts(hostname="h", platform="p", python="3", cpus=1),
    )


def corpus() -> Corpus:
    return Corpus(root=Path("/c"), tasks=[], lock=None, tree_hash="0" * 64, file_hashes={})


def run_texts(items: list[TaskRecord]) -> dict[str, str]:
    return {i.key: i.text for i in run_disclosure(manifest(), items, summarize(items)).items}


def offline_texts(items: list[TaskRecord]) -> dict[str, str]:
    disclosure = offline_disclosure(
        corpus(), items, summarize(items), Path("/states"), BuildInfo(version="0"), None, False, []
    )
    return {i.key: i.text for i in disclosure.items}


CHANGED = {"pass", "grading_access", "scoring_input"}

RUN_WITHOUT_LEGS = {
    "pass": "pass = score 1.0 with nothing ungraded (negative checks included); score = points "
    "earned / sum of check points; headline denominator = all 6 tasks, unmeasurable and "
    "blocked counted as not passed. Negative checks (points for what must not happen) are "
    "earned by doing nothing, so an idle agent's partial credit is highest where tasks hold "
    "the most of them, often the hard ones",
    "grading_access": "no: the agent received only the projection (task id, instruction, "
    "family, scenario label, start URL), built from a whitelist and verified in strict mode "
    "per task and per attempt (5 verified, 1 blocked). The scenario label can suggest the "
    "outcome",
    "scoring_input": "only the end state read back from the embedded environment after each "
    "attempt; agent messages and claims recorded, never scored (1 of 1 attempts claimed "
    "success without passing)",
}

OFFLINE_WITHOUT_LEGS = {
    "pass": "pass = score 1.0 with nothing ungraded (negative checks included); score = points "
    "earned / sum of check points; headline denominator = all 6 tasks in scope, unmeasurable "
    "and blocked counted as not passed",
    "grading_access": f"{OFFLINE} (endstate did not run the system). Firewall: 5 projection(s) "
    "verified in strict mode, 1 blocked. Projections include the scenario label, which can "
    "suggest the outcome",
    "scoring_input": "only the state documents supplied in /states; no agent messages or "
    "claims were read",
}

ERRAND_PASS = (
    ". Errands (3 tasks): each leg is one check worth one point, so an errand's score is legs "
    "correct / legs, and it passes only when every leg is correct (a set leg counts only at "
    "F1 = 1.0)"
)
CONTRACT = (
    "and, for the 3 tasks with read legs, the answer contract (answer_fields: the keys to "
    "answer with and what each holds)"
)


def test_run_disclosure_without_legs_reads_exactly_as_before() -> None:
    texts = run_texts(without_legs(records()))
    assert {k: texts[k] for k in CHANGED} == RUN_WITHOUT_LEGS


def test_offline_disclosure_without_legs_reads_exactly_as_before() -> None:
    texts = offline_texts(without_legs(records()))
    assert {k: texts[k] for k in CHANGED} == OFFLINE_WITHOUT_LEGS


def test_run_disclosure_tells_how_errands_are_scored_and_what_was_read() -> None:
    plain, errands = run_texts(without_legs(records())), run_texts(records())
    assert {k for k in plain if plain[k] != errands[k]} == CHANGED
    assert errands["pass"] == RUN_WITHOUT_LEGS["pass"] + ERRAND_PASS
    assert errands["grading_access"] == RUN_WITHOUT_LEGS["grading_access"].replace(
        "start URL)", f"start URL {CONTRACT})"
    )
    assert errands["scoring_input"] == (
        "only the end state read back from the embedded environment after each attempt and, "
        "for 3 tasks with read legs, the named fields of one JSON object in the agent's final "
        "message (nothing else in the message, never a claim of success); write legs graded on "
        "the database delta only; the rest of every agent message, and every claim, recorded, "
        "never scored (1 of 1 attempts claimed success without passing)"
    )
    assert all("\n" not in text for text in errands.values())


def test_offline_disclosure_says_read_legs_had_no_answer_to_grade() -> None:
    plain, errands = offline_texts(without_legs(records())), offline_texts(records())
    assert {k for k in plain if plain[k] != errands[k]} == CHANGED
    assert errands["pass"] == OFFLINE_WITHOUT_LEGS["pass"] + ERRAND_PASS
    assert errands["grading_access"] == OFFLINE_WITHOUT_LEGS["grading_access"] + ", " + CONTRACT
    assert errands["scoring_input"] == (
        OFFLINE_WITHOUT_LEGS["scoring_input"] + ", so the read legs of 3 tasks (fields of a "
        "JSON answer in the agent's final message) had no answer to grade and count as not "
        "correct; write legs graded on the database delta only"
    )


def test_write_only_errands_name_no_answer_contract_and_weighted_legs_say_so() -> None:
    items = [
        rec("w1", [leg(0, "write", True, points=2.0)], template=NEW_PHARMACY),
        rec("w2", [leg(0, "write", False)], template=NEW_PHARMACY),
    ]
    texts = run_texts(items)
    assert "answer_fields" not in texts["grading_access"]
    assert "final message" not in texts["scoring_input"]
    assert "write legs graded on the database delta only" in texts["scoring_input"]
    assert "Errands (2 tasks): each leg is one check weighted by its points" in texts["pass"]

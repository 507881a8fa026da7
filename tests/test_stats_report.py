"""Statistics and the text report built from task records."""

from __future__ import annotations

from math import comb

import pytest

from endstate.records import TaskRecord
from endstate.report.summary import headline_records, summarize
from endstate.stats import bootstrap_mean, pass_hat_k, wilson_interval


def test_wilson_interval_matches_the_reference_figure() -> None:
    low, high = wilson_interval(91, 135)
    assert (round(91 / 135 * 100, 1), round(low * 100, 1), round(high * 100, 1)) == (
        67.4,
        59.1,
        74.7,
    )


def test_wilson_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12) and 0.2 < high < 0.35
    low, high = wilson_interval(10, 10)
    assert 0.65 < low < 0.8 and high == pytest.approx(1.0)


def test_pass_hat_k_is_the_unbiased_estimator() -> None:
    outcomes = [(5, 5), (5, 3), (5, 0)]
    assert pass_hat_k(outcomes, 1) == pytest.approx((1 + 0.6 + 0) / 3)
    assert pass_hat_k(outcomes, 2) == pytest.approx((1 + comb(3, 2) / comb(5, 2) + 0) / 3)
    assert pass_hat_k(outcomes, 5) == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        pass_hat_k([(2, 2)], 3)


def test_bootstrap_interval_brackets_the_mean() -> None:
    values = [0.0, 0.5, 1.0, 1.0, 0.25, 0.75]
    low, high = bootstrap_mean(values)
    assert low < sum(values) / len(values) < high
    assert bootstrap_mean(values) == bootstrap_mean(values)


def rec(
    task: str,
    attempt: str,
    status: str,
    score: float,
    family: str = "prior_auth",
    tier: str = "easy",
) -> TaskRecord:
    return TaskRecord(
        task_id=task,
        attempt=attempt,
        family=family,
        tier=tier,
        status=status,  # type: ignore[arg-type]
        score=score,
        earned=score,
        weight=1,
        flagged=status == "failed" and score == 0.5,
    )


def test_headline_uses_the_first_attempt_in_number_order() -> None:
    records = [
        rec("a", "10", "failed", 0),
        rec("a", "2", "passed", 1),
        rec("a", "1", "failed", 0.5),
    ]
    assert [r.attempt for r in headline_records(records)] == ["1"]


def test_summary_counts_unmeasurable_and_blocked_in_the_denominator() -> None:
    records = [
        rec("a", "1", "passed", 1.0),
        rec("b", "1", "failed", 0.5, tier="hard"),
        rec("c", "1", "unmeasurable", 0.0, family="dme"),
        rec("d", "1", "blocked", 0.0, family="dme", tier="hard"),
    ]
    summary = summarize(records)
    assert (summary.tasks, summary.passes, summary.unmeasurable, summary.blocked) == (4, 1, 1, 1)
    assert summary.pass_rate == 0.25
    assert summary.mean_score == pytest.approx(1.5 / 4)
    assert summary.by_family["dme"].tasks == 2 and summary.by_family["dme"].full_credit == 0
    assert list(summary.by_tier) == ["easy", "hard"]
    assert summary.by_family_tier["prior_auth"]["hard"].mean == 0.5
    assert summary.replicates is None


def test_replicates_report_pass_hat_k_and_reliability() -> None:
    records = [rec("a", str(i), "passed", 1.0) for i in range(1, 6)]
    records += [rec("b", str(i), "passed" if i != 3 else "failed", 1.0) for i in range(1, 6)]
    rep = summarize(records).replicates
    assert rep is not None
    assert rep.attempts_per_task == {5: 2}
    assert rep.reliable == 1
    assert rep.pass_hat_k[5] == pytest.approx(0.5)
    assert rep.pass_at_1 == pytest.approx(0.9)


def test_a_deterministic_only_line_stands_beside_the_headline_when_rubric_is_ungraded() -> None:
    from endstate.records import CheckVerdict
    from endstate.report.disclosure import Disclosure
    from endstate.report.text import render_text

    def check(kind: str, outcome: str) -> CheckVerdict:
        earned = 1.0 if outcome == "pass" else 0.0
        return CheckVerdict(
            index=0,
            type=kind,
            points=1,
            earned=earned,
            outcome=outcome,  # type: ignore[arg-type]
        )

    flagged = rec("a", "1", "failed", 0.5).model_copy(
        update={"checks": [check("jmespath", "pass"), check("llm_judge", "ungraded")]}
    )
    wrong = rec("b", "1", "failed", 0.0).model_copy(
        update={"checks": [check("jmespath", "fail"), check("llm_judge", "ungraded")]}
    )
    summary = summarize([flagged, wrong])
    assert summary.passes == 0 and summary.deterministic_passes == 1
    text = render_text(summary, Disclosure(items=[]), "t")
    assert "Full-credit passes: 0/2" in text
    assert "Secondary, not a score: 1/2 tasks pass every deterministic check" in text
    plain = summarize([rec("c", "1", "failed", 0.0)])
    assert plain.deterministic_passes is None
    assert "Secondary" not in render_text(plain, Disclosure(items=[]), "t")

"""Cost by difficulty: counted by hand from records built here, with missing accounting shown
as missing (never as zero), partly missing cells saying how many, and a price table."""

from __future__ import annotations

import csv
import io

import pytest

from endstate.records import AttemptFacts, TaskRecord
from endstate.report.cost import run_cost
from endstate.report.head_to_head_text import cost_tables
from endstate.report.tables_out import csv_text, markdown


def rec(
    task: str,
    tier: str,
    attempt: str = "1",
    tokens: tuple[int, int] | None = None,
    cost: float | None = None,
    steps: int = 0,
    seconds: float = 0.0,
    facts: bool = True,
) -> TaskRecord:
    return TaskRecord(
        task_id=task,
        attempt=attempt,
        family="prior_auth",
        tier=tier,
        status="failed",
        score=0,
        earned=0,
        weight=1,
        facts=AttemptFacts(
            claim="done",
            steps=steps,
            prompt_tokens=tokens[0] if tokens else None,
            completion_tokens=tokens[1] if tokens else None,
            cost_usd=cost,
            attempt_seconds=seconds,
        )
        if facts
        else None,
    )


def test_cost_by_tier_hand_counted() -> None:
    records = [
        rec("e1", "easy", tokens=(1000, 100), cost=0.01, steps=4, seconds=10),
        rec("e1", "easy", "2", tokens=(3000, 300), cost=0.03, steps=6, seconds=20),
        rec("e2", "easy", tokens=(2000, 200), cost=0.02, steps=5, seconds=30),
        rec("h1", "hard", tokens=(10_000, 1000), cost=0.5, steps=20, seconds=100),
        rec("m1", "medium", tokens=(500, 50), cost=0.005, steps=2, seconds=5),
    ]
    cost = run_cost("agent", records)
    assert list(cost.by_tier) == ["easy", "medium", "hard"]  # difficulty order
    easy = cost.by_tier["easy"]
    assert (easy.tasks, easy.attempts) == (2, 3)
    assert easy.prompt_tokens.total == 6000 and easy.prompt_tokens.mean == 2000
    assert easy.completion_tokens.total == 600 and easy.completion_tokens.mean == 200
    assert easy.dollars.total == pytest.approx(0.06) and easy.dollars.mean == pytest.approx(0.02)
    assert easy.steps.total == 15 and easy.steps.mean == 5
    assert easy.seconds.total == 60 and easy.seconds.mean == 20
    assert cost.overall.tasks == 4 and cost.overall.attempts == 5
    assert cost.overall.prompt_tokens.total == 16_500
    assert cost.overall.dollars.total == pytest.approx(0.565)
    assert all(getattr(cost.overall, q).missing == 0 for q in ("prompt_tokens", "dollars"))
    [table] = cost_tables([cost])
    easy_row = next(r for r in table.rows if r[1] == "easy")
    assert easy_row[:6] == ["agent", "easy", "2", "3", "2,000", "6,000"]
    assert "$0.0200" in easy_row and "$0.06" in easy_row
    assert [r[1] for r in table.rows] == ["easy", "medium", "hard", "overall"]


def test_missing_accounting_is_missing_never_zero() -> None:
    # An agent without a model: no tokens, no cost, in every attempt.
    cost = run_cost("null", [rec("e1", "easy", steps=0, seconds=1.5), rec("h1", "hard")])
    assert cost.overall.prompt_tokens.total is None and cost.overall.prompt_tokens.mean is None
    assert cost.overall.dollars.total is None and cost.overall.dollars.missing == 2
    [table] = cost_tables([cost])
    overall = next(r for r in table.rows if r[1] == "overall")
    assert overall[4:10] == ["missing"] * 6  # tokens and dollars: mean and total
    assert "0" not in overall[4:10] and "$0.00" not in overall[4:10]
    assert overall[10] == "0.0"  # steps were counted: zero steps is a real zero
    numbers = list(csv.DictReader(io.StringIO(csv_text([table]))))
    row = next(r for r in numbers if r["tier"] == "overall")
    assert row["dollars_total"] == "" and row["dollars_missing"] == "2"
    assert "missing" in markdown([table])


def test_a_tier_with_some_attempts_missing_says_how_many() -> None:
    records = [
        rec("e1", "easy", tokens=(1000, 10), cost=0.1, steps=3, seconds=4),
        rec("e2", "easy", tokens=None, cost=None, steps=5, seconds=6),
        rec("e3", "easy", facts=False),  # a scheduled attempt never recorded
        rec("h1", "hard", tokens=(2000, 20), cost=0.2, steps=1, seconds=1),
    ]
    cost = run_cost("partial", records)
    easy = cost.by_tier["easy"]
    assert (easy.prompt_tokens.reported, easy.prompt_tokens.missing) == (1, 2)
    assert easy.prompt_tokens.total == 1000 and easy.prompt_tokens.mean == 1000
    assert (easy.steps.reported, easy.steps.missing) == (2, 1)
    assert easy.steps.mean == 4
    assert cost.by_tier["hard"].dollars.missing == 0
    [table] = cost_tables([cost])
    easy_row = next(r for r in table.rows if r[1] == "easy")
    assert easy_row[4] == "1,000 (2 of 3 missing)"
    assert easy_row[8] == "$0.1000 (2 of 3 missing)"
    assert easy_row[10] == "4.0 (1 of 3 missing)"
    hard_row = next(r for r in table.rows if r[1] == "hard")
    assert "missing" not in " ".join(hard_row)


def test_a_price_table_prices_from_tokens_and_an_unpriced_attempt_is_missing() -> None:
    records = [
        rec("e1", "easy", tokens=(1_000_000, 100_000), cost=9.0),
        rec("e2", "easy", tokens=None, cost=None),
    ]

    def pricer(r: TaskRecord) -> float | None:
        f = r.facts
        if f is None or f.prompt_tokens is None:
            return None
        return f.prompt_tokens * 3 / 1e6 + (f.completion_tokens or 0) * 15 / 1e6

    cost = run_cost("llm", records, pricer, "prices.yaml")
    assert cost.overall.dollars.total == pytest.approx(4.5)  # the table, not the record's 9.0
    assert cost.overall.dollars.missing == 1
    [table] = cost_tables([cost])
    assert "Dollars from: llm: prices.yaml." in table.notes

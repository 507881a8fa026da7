"""Blind policies played through the pages: hard tasks must not fall to them."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from endstate.builtin.generator import generate_corpus
from endstate.builtin.strategy_runs import run_strategies
from endstate.builtin.templates import task_templates
from endstate.cli import app
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import Task
from endstate.errors import EndstateError

SEED = 91733  # a world the built-in corpus does not use, with a task for every hard template
PLAIN_SEED = 12345  # its first plain request has no letter newer than the signed one
runner = CliRunner()


def test_always_submit_and_always_escalate_fail_most_hard_tasks(tmp_path: Path) -> None:
    """One task of every hard template, on a fresh seed: each strategy passes at most a
    third of them; and always-submit, on a plain portal request, does pass — the strategy
    really does the work, it just never reads whether it should."""
    templates = [t for t in task_templates().values() if t.tier == "hard"]
    hard = sorted(t.id for t in templates)
    # Tasks are spread evenly over the family cells: enough for the fullest cell's templates.
    fullest = max(Counter(t.family for t in templates).values())
    generate_corpus(SEED, fullest * 3, tmp_path / "hard", only=hard)
    # The plain request from a world of its own (its task ids cannot meet the hard ones').
    generate_corpus(PLAIN_SEED, 1, tmp_path / "plain", only=["pa.medium.portal-request"])
    first: dict[str, Task] = {}
    for task in [*load_corpus(tmp_path / "hard").tasks, *load_corpus(tmp_path / "plain").tasks]:
        first.setdefault(str(task.grading.extra["template_id"]), task)
    assert sorted(first) == sorted([*hard, "pa.medium.portal-request"])
    results = asyncio.run(run_strategies(list(first.values())))
    for strategy in ("always-submit", "always-escalate"):
        mine = [r for r in results if r.strategy == strategy and r.tier == "hard"]
        assert len(mine) == len(hard)
        passed = [r.task_id for r in mine if r.passed]
        assert len(passed) * 3 <= len(mine), (strategy, passed)
    plain = [r for r in results if r.strategy == "always-submit" and r.tier == "medium"]
    assert plain and all(r.passed for r in plain), [r.attempt for r in plain]


def test_the_command_shows_a_table_per_template_and_refuses_an_empty_selection(
    tmp_path: Path,
) -> None:
    root = tmp_path / "one"
    generate_corpus(SEED, 1, root, only=["dn.hard.duplicate-claim"])
    result = runner.invoke(app, ["corpus", "strategies", str(root)])
    assert result.exit_code == 0, result.output
    assert "dn.hard.duplicate-claim" in result.output
    assert "always-submit: passed 0/1 tasks" in result.output
    with pytest.raises(EndstateError, match="no generated task matches"):
        runner.invoke(
            app, ["corpus", "strategies", str(root), "--tier", "easy"], catch_exceptions=False
        )

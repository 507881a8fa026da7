"""Differential test against the public benchmark's own evaluator, check by check.

The benchmark's `JMESPathEvaluator` (from its harness in ../shared/peers) and endstate score the
same (check, state) pairs: every value kind against every other, both modes, plus seeded
random nested values. Each check goes through endstate's task loader first, so the loader's
reading of `expected_value` / `contains_value` is compared too. Skipped, saying why, where the
benchmark's harness is not beside the checkout.
"""

from __future__ import annotations

import importlib.util
import random
from typing import Any

import pytest

from conftest import _shared
from endstate.corpus.hab_v2 import parse_task
from endstate.corpus.model import JmespathCheck
from endstate.scoring.checks import evaluate

SCALARS: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    2,
    -1,
    0.0,
    1.0,
    1.0000000001,
    1 + 1e-9,
    0.1 + 0.2,
    0.3,
    1e308,
    10**400,
    float("inf"),
    float("nan"),
    "",
    "true",
    "TRUE",
    "False",
    "false",
    "1",
    "0",
    "a",
    "ab",
    "REF-2025-002",
]
CONTAINERS: list[Any] = [
    [],
    [1],
    [True],
    [1.0],
    ["a", "b"],
    ["ab"],
    [1, [2]],
    [None],
    {},
    {"a": 1},
    {"a": True},
    {"a": "true"},
    {"b": None},
    {"ab": 1, "a": 2},
]
VALUES = SCALARS + CONTAINERS


def _reference() -> Any:
    harness = _shared("peers/health-admin-bench-harness")
    path = harness / "harness" / "evaluators" / "jmespath_evaluator.py"
    spec = importlib.util.spec_from_file_location("hab_jmespath_evaluator", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.JMESPathEvaluator()


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 2 or roll < 0.55:
        return rng.choice(SCALARS)
    if roll < 0.8:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    keys = rng.sample(["a", "b", "ab", "1"], rng.randint(0, 3))
    return {k: _random_value(rng, depth + 1) for k in keys}


def _ours(eval_config: dict[str, Any], state: dict[str, Any]) -> bool:
    doc = {
        "id": "t",
        "goal": "g",
        "website": {"id": "w", "name": "W", "url": "http://x.example/"},
        "difficulty": "easy",
        "evals": [eval_config],
        "config": {"task_id": "t", "start_url": "/w?task_id={{TASK_ID}}&run_id={{RUN_ID}}"},
    }
    task, problems = parse_task("prior_auth/t.json", "prior_auth", doc)
    assert task is not None, [p.line() for p in problems]
    check = task.grading.checks[0]
    assert isinstance(check, JmespathCheck)
    return evaluate(check, state)[0]


def _cases() -> list[tuple[dict[str, Any], Any]]:
    cases: list[tuple[dict[str, Any], Any]] = []
    for expected in VALUES:
        for actual in VALUES:
            cases.append(({"expected_value": expected}, actual))
    for needle in [v for v in SCALARS if isinstance(v, str)] + [None]:
        for actual in VALUES:
            cases.append(({"contains_value": needle}, actual))
            cases.append(({"expected_value": None, "contains_value": needle}, actual))
    for actual in VALUES[:6]:
        cases.append(({"expected_value": "a", "contains_value": "b"}, actual))
        cases.append(({}, actual))
    rng = random.Random(20261201)
    for _ in range(3000):
        actual = _random_value(rng)
        if rng.random() < 0.75:
            cases.append(({"expected_value": _random_value(rng)}, actual))
        else:
            cases.append(({"contains_value": rng.choice(["a", "b", "1", "true", ""])}, actual))
    return cases


def test_every_verdict_equals_the_benchmarks() -> None:
    reference = _reference()
    disagreements = []
    cases = _cases()
    for extra, actual in cases:
        config = {"type": "jmespath", "query": "v", "points": 1, **extra}
        state = {"v": actual}
        theirs = reference.evaluate(dict(config), state)[0]
        ours = _ours(config, state)
        if theirs != ours:
            disagreements.append((extra, actual, theirs, ours))
    assert disagreements == [], f"{len(disagreements)} of {len(cases)}: {disagreements[:5]}"


@pytest.mark.parametrize(
    ("query", "state"),
    [
        ("full_state.agentActions.sentFax || full_state.faxPortal.faxesSent", None),
        ("submittedAttachmentCount > `0`", {"submittedAttachmentCount": "1"}),
        ("length(notes)", {"notes": 3}),
        ("a.b[", {}),  # does not compile: the benchmark fails the check, so do we
    ],
)
def test_queries_that_misbehave_get_the_benchmarks_verdict(query: str, state: Any) -> None:
    reference = _reference()
    if state is None:
        state = {"full_state": {"agentActions": {"sentFax": False}, "faxPortal": {"faxesSent": 1}}}
    config = {"type": "jmespath", "query": query, "expected_value": True, "points": 1}
    assert _ours(config, state) == reference.evaluate(dict(config), state)[0]

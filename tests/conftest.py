"""Shared test fixtures: the public corpus and recorded states live in ../shared, never here."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ENDSTATE_SHARED", ROOT.parent / "shared"))


def _shared(rel: str) -> Path:
    path = SHARED / rel
    if not path.exists():
        raise FileNotFoundError(
            f"test data {path} is missing; set ENDSTATE_SHARED to the shared/ folder"
        )
    return path


@pytest.fixture(scope="session")
def hab_train() -> Path:
    return _shared("corpora/hab-v2-train")


@pytest.fixture(scope="session")
def hab_states() -> Path:
    return _shared("fixtures/hab-v2-states")


def jmespath_check(
    query: str, expected: Any = True, points: float = 1, **extra: Any
) -> dict[str, Any]:
    return {
        "type": "jmespath",
        "query": query,
        "expected_value": expected,
        "points": points,
        "description": f"check {query}",
        "category": "Task Resolution",
        **extra,
    }


def judge_check(answer: str = "{{note}}", points: float = 1) -> dict[str, Any]:
    return {
        "type": "llm_judge",
        "description": "Agent documented the determination",
        "student_answer": answer,
        "student_answer_context": "note",
        "rubric": "Does the note say no authorization is needed? 1.0 if yes, 0.0 if no.",
        "points": points,
        "category": "Documentation",
    }


def task_doc(
    task_id: str = "t-easy-1", evals: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": task_id,
        "goal": "Open referral REF-1 and document whether prior auth is required.",
        "website": {"id": "emr", "name": "EMR", "url": "http://127.0.0.1:9/"},
        "difficulty": "easy",
        "category": "no_auth",
        "challengeType": "no_auth",
        "possible": True,
        "evals": evals if evals is not None else [jmespath_check("done")],
        "config": {
            "task_id": task_id.replace("-", "_"),
            "start_url": "/worklist?task_id={{TASK_ID}}&run_id={{RUN_ID}}",
        },
        "metadata": {"expected_outcome": {"auth_required": False}, "step_by_step": ["1. open"]},
    }
    doc.update(extra)
    return doc


@pytest.fixture
def make_corpus(tmp_path: Path) -> Callable[..., Path]:
    """Write task documents into a family-folder tree and return its root."""

    def make(tasks: dict[str, Any], root_name: str = "corpus") -> Path:
        root = tmp_path / root_name
        for rel, doc in tasks.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=2))
        return root

    return make

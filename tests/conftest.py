"""Shared test fixtures: the public corpus and recorded states live in ../shared, never here."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from endstate.corpus.loader import load_corpus
from endstate.corpus.model import Task
from openai_double import ChatDouble

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ENDSTATE_SHARED", ROOT.parent / "shared"))
FIXTURES = ROOT / "tests" / "fixtures"
REQUIRE_SHARED = "ENDSTATE_REQUIRE_SHARED"  # set by CI: there, missing data is a failure


def _shared(rel: str) -> Path:
    path = SHARED / rel
    if not path.exists():
        if os.environ.get(REQUIRE_SHARED):
            raise FileNotFoundError(f"test data {path} is missing (${REQUIRE_SHARED} is set)")
        pytest.skip(f"no {path}: see README, 'Tests on the public benchmark'")
    return path


@pytest.fixture(scope="session")
def ray_cli() -> Path:
    """Ray's command line beside this Python: skipped with a reason without Ray, except where
    ENDSTATE_REQUIRE_SHARED is set (CI), where a missing Ray is a failure."""
    path = Path(sys.executable).with_name("ray")
    if importlib.util.find_spec("ray") is None or not path.exists():
        if os.environ.get(REQUIRE_SHARED):
            raise FileNotFoundError(f"Ray is not installed (${REQUIRE_SHARED} is set)")
        pytest.skip("Ray is not installed: pip install 'endstate[ray]'")
    return path


@pytest.fixture(scope="session")
def hab_train() -> Path:
    return _shared("corpora/hab-v2-train")


@pytest.fixture(scope="session")
def hab_states() -> Path:
    return _shared("fixtures/hab-v2-states")


@dataclass(frozen=True)
class HabCorpus:
    """A corpus in the benchmark's format, and the facts about it the tests rely on."""

    root: Path
    tasks: int
    sample: str  # an easy prior-auth task with a scenario label and extra config
    sample_label: str
    sample_config: dict[str, str]
    denial: str  # a denial task with metadata a projection must never carry
    denial_start: str  # its start URL, bound to run id "ep-1" on http://127.0.0.1:8123
    denial_default: str  # and unbound (the website's own URL, run id "preview")
    declared: tuple[str, float, float]  # a task whose declared points differ: (id, declared, sum)
    declared_warnings: int
    warnings_family: str
    fax: str  # relative path of an easy task file, edited by the lock tests
    stepwise: int  # tasks with step_by_step metadata, at least


SHARED_FACTS = dict(
    tasks=100,
    sample="emr-easy-1",
    sample_label="no_auth_medicare",
    sample_config={"patient_referral_id": "REF-2025-002"},
    denial="denial-hard-3",
    denial_start="http://127.0.0.1:8123/denied?task_id=denial_hard_3&run_id=ep-1",
    denial_default="https://emrportal.vercel.app/denied?task_id=denial_hard_3&run_id=preview",
    declared=("denial-medium-1", 17, 18),
    declared_warnings=4,
    warnings_family="appeals_denials",
    fax="dme/fax-easy-1.json",
    stepwise=100,
)
MINI_FACTS = dict(
    tasks=6,
    sample="mini-pa-easy-1",
    sample_label="no_auth_commercial",
    sample_config={"patient_referral_id": "REF-M-001"},
    denial="mini-denial-hard-1",
    denial_start="http://127.0.0.1:8123/denied?task_id=mini_denial_hard_1&run_id=ep-1",
    denial_default="https://mini-portal.example/denied?task_id=mini_denial_hard_1&run_id=preview",
    declared=("mini-denial-medium-1", 9, 10),
    declared_warnings=1,
    warnings_family="appeals_denials",
    fax="dme/mini-fax-easy-1.json",
    stepwise=6,
)


@pytest.fixture(params=["mini", "shared"])
def hab_corpus(request: pytest.FixtureRequest) -> HabCorpus:
    """The repository's own small corpus in the benchmark's format, then the public training
    split from ../shared (skipped with a reason where it is not beside the checkout)."""
    if request.param == "mini":
        return HabCorpus(root=FIXTURES / "hab-mini", **MINI_FACTS)  # type: ignore[arg-type]
    return HabCorpus(root=_shared("corpora/hab-v2-train"), **SHARED_FACTS)  # type: ignore[arg-type]


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


@pytest.fixture
def chat() -> Iterator[ChatDouble]:
    """A local chat-completions server for judges: the real openai client talks to it."""
    double = ChatDouble().start()
    yield double
    double.stop()


@pytest.fixture
def rubric_task(make_corpus: Callable[..., Path]) -> Task:
    """One task: a deterministic check (1 point) and a rubric check on `note` (2 points)."""
    root = make_corpus(
        {"prior_auth/t.json": task_doc("t", [jmespath_check("done"), judge_check("{{ note }}", 2)])}
    )
    return load_corpus(root).tasks[0]

"""Fixtures for end-to-end runs on the embedded suite: small corpora written per test."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from endstate.envs.world import DEFAULT_SEED, generate_world

CANARY = "GRADING-CANARY-7f3a"


def referral_id() -> str:
    return generate_world(DEFAULT_SEED).referrals[0].id


def clear_task(
    task_id: str, ref: str, rubric: bool = False, viewed: bool = False
) -> dict[str, Any]:
    evals: list[dict[str, Any]] = [
        {
            "type": "jmespath",
            "query": f"contains(ehr.cleared_referrals, '{ref}')",
            "expected_value": True,
            "points": 1,
            "description": f"cleared {CANARY}",
            "category": "Task Resolution",
        },
        {
            "type": "jmespath",
            "query": f"length(ehr.notes[?subject_id=='{ref}' && category=='auth-determination']) > `0`",
            "expected_value": True,
            "points": 1,
            "description": "determination note",
            "category": "Documentation",
        },
    ]
    if viewed:
        evals.append(
            {
                "type": "jmespath",
                "query": "length(ehr.referrals_viewed) > `0`",
                "expected_value": True,
                "points": 1,
                "description": "opened a referral",
                "category": "Information Retrieval",
            }
        )
    if rubric:
        evals.append(
            {
                "type": "llm_judge",
                "description": "note explains the determination",
                "student_answer": "{{ ehr.notes[-1].body }}",
                "student_answer_context": "determination note",
                "rubric": f"Does the note explain why no new authorization is needed? {CANARY}",
                "points": 1,
                "category": "Documentation",
            }
        )
    return {
        "id": task_id,
        "goal": f"Open referral {ref}. Decide whether prior authorization is needed, document "
        "your determination, then clear the referral from the worklist.",
        "website": {"id": "ehr", "name": "EHR"},
        "difficulty": "easy",
        "category": "auth_check",
        "possible": True,
        "evals": evals,
        "config": {
            "task_id": task_id,
            "start_url": "/worklist?task_id={{TASK_ID}}&run_id={{RUN_ID}}",
        },
        "metadata": {"expected_outcome": CANARY, "step_by_step": [f"1. {CANARY}"]},
    }


@pytest.fixture
def embedded_corpus(tmp_path: Path) -> Callable[..., Path]:
    def make(n: int = 1, rubric: bool = False, viewed: bool = False) -> Path:
        root = tmp_path / "corpus"
        ref = referral_id()
        for i in range(1, n + 1):
            path = root / "prior_auth" / f"pa-easy-{i}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(clear_task(f"pa-easy-{i}", ref, rubric, viewed), indent=2))
        return root

    return make


def write_reference_trajectory(path: Path) -> Path:
    """The reference's steps for the embedded corpus's task (note the determination, clear the
    referral) as a trajectory file at `path`."""
    ref = referral_id()
    actions = [
        {"type": "goto", "url": f"/referrals/{ref}"},
        {"type": "click", "target": {"role": "tab", "name": "Communications"}},
        {"type": "fill", "target": {"label": "Subject"}, "value": "Prior auth determination"},
        {
            "type": "select",
            "target": {"role": "button", "name": "Category"},
            "option": "Authorization determination",
        },
        {
            "type": "fill",
            "target": {"label": "Note"},
            "value": "Existing authorization on file; no new request.",
        },
        {"type": "click", "target": {"role": "button", "name": "Save note"}},
        {"type": "click", "target": {"role": "button", "name": "Clear from worklist"}},
        {"type": "done", "message": "Documented and cleared."},
    ]
    path.write_text(json.dumps({"version": 1, "actions": actions}))
    return path


@pytest.fixture
def reference_trajectory(tmp_path: Path) -> Path:
    return write_reference_trajectory(tmp_path / "reference.json")

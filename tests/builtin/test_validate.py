"""`corpus validate` through a real browser: good tasks pass, broken tasks fail the command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from endstate.builtin import builtin_corpus_path
from endstate.builtin.generator import generate, write_corpus
from endstate.builtin.trajectory import apply_edits
from endstate.cli.builtin import corpus_extra_app
from endstate.corpus.lock import LOCK_NAME

runner = CliRunner()
# One easy, one cross-system and one blocker task, from a seed the built-in corpus does not use.
SMALL = ("pa.easy.auth-on-file", "pa.medium.fax-request", "dn.hard.governing-deadline")


def _small(tmp_path: Path) -> Path:
    chosen = {}
    for g in generate(2, 45):
        chosen.setdefault(g.data["template_id"], g)
    root = tmp_path / "small"
    write_corpus([chosen[t] for t in SMALL], root, name="small", source="test", stamp="2026-03-02")
    return root


def _unlocked_copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest)
    (dest / LOCK_NAME).unlink()
    return dest


def test_apply_edits_addresses_the_reference_indices() -> None:
    steps = [{"type": "goto", "url": str(i)} for i in range(4)]
    edits = [
        {"op": "drop", "at": 1},
        {"op": "insert", "at": 1, "steps": [{"type": "goto", "url": "x"}]},
        {"op": "replace", "at": 3, "step": {"type": "goto", "url": "y"}},
        {"op": "insert", "at": 4, "steps": [{"type": "goto", "url": "z"}]},
    ]
    assert [s["url"] for s in apply_edits(steps, edits)] == ["0", "x", "2", "y", "z"]


def test_validate_small_generated_corpus_succeeds(tmp_path: Path) -> None:
    root = _small(tmp_path)
    report = tmp_path / "v.json"
    result = runner.invoke(
        corpus_extra_app, ["validate", str(root), "--workers", "2", "--json", str(report)]
    )
    assert result.exit_code == 0, result.output
    found = json.loads(report.read_text())
    assert len(found) == 3 and all(v["ok"] for v in found)
    assert all(v["solvable"] and v["discriminating"] for v in found)
    assert all(v["mutations"] and all(v["mutations"].values()) for v in found)
    assert "mutation coverage" in result.output


def _break(root: Path, change: str) -> str:
    path = next(root.glob("*/*.json"))
    data = json.loads(path.read_text())
    if change == "impossible-check":
        data["checks"].append(
            {
                "type": "jmespath",
                "query": "ehr.cleared_referrals",
                "expected_value": ["REF-0000-0000"],
                "points": 1,
                "description": "can never pass",
                "category": "Task Resolution",
            }
        )
    elif change == "idle-trajectory":
        data["reference"] = {"steps": [{"type": "wait", "seconds": 0.1}], "consequential": []}
        data["mutations"] = []
    elif change == "toothless-mutation":
        data["mutations"] = [
            {"id": "noop", "kind": "wrong-value", "why": "changes nothing", "edits": []}
        ]
    path.write_text(json.dumps(data))
    return str(data["id"])


@pytest.mark.parametrize("change", ["impossible-check", "idle-trajectory", "toothless-mutation"])
def test_validate_fails_on_a_broken_task(tmp_path: Path, change: str) -> None:
    root = _unlocked_copy(_small(tmp_path), tmp_path / "broken")
    task_id = _break(root, change)
    result = runner.invoke(
        corpus_extra_app, ["validate", str(root), "--workers", "2", "--tasks", task_id]
    )
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output and task_id in result.output


def test_validate_the_whole_builtin_corpus() -> None:
    """Every built-in task's reference earns every deterministic point, its null attempt fails
    and its unreplayed mutants (the dropped last write) are caught; the replayed mutants run
    for one task of each template. The whole set, every mutant replayed, is
    `endstate corpus validate builtin` (a few times longer)."""
    result = runner.invoke(
        corpus_extra_app,
        # Three at a time: attempts wait on pages as much as they compute, so a third keeps
        # two cores busy (about a sixth faster than two).
        ["validate", str(builtin_corpus_path()), "--workers", "3", "--replay-sample", "1"],
    )
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())  # the summary line may wrap
    assert "0 task(s) failed" in said and "not replayed, on request" in said

"""`endstate score --answers`: errands scored offline from supplied end states and final
messages, each file named in any problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from endstate.cli import app

from .test_leg_checks import RIGHT, SENT, _errand

runner = CliRunner()


def _corpus(root: Path, n: int) -> list[str]:
    ids = []
    for i in range(1, n + 1):
        data = _errand(id=f"pe-1-{i:03d}")
        path = root / "patient_errands" / f"{data['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
        ids.append(data["id"])
    return ids


def _records(path: Path) -> dict[str, dict[str, Any]]:
    return {r["task_id"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_errands_score_offline_from_states_and_final_messages(tmp_path: Path) -> None:
    ids = _corpus(tmp_path / "corpus", 4)
    states, answers = tmp_path / "states", tmp_path / "answers"
    states.mkdir()
    answers.mkdir()
    for task_id in ids:
        (states / f"{task_id}.json").write_text(json.dumps(SENT))
    (answers / f"{ids[0]}.txt").write_text("Done.\n```json\n" + json.dumps(RIGHT) + "\n```\n")
    (answers / f"{ids[1]}.txt").write_text(json.dumps({**RIGHT, "a1c": 9.9}))
    (answers / f"{ids[3]}.txt").write_bytes(b'{"a1c": "\xff"}')  # not UTF-8
    (answers / "stray.txt").write_text("{}")
    out = tmp_path / "records.jsonl"
    result = runner.invoke(
        app,
        [
            "score",
            "--corpus",
            str(tmp_path / "corpus"),
            "--states",
            str(states),
            "--answers",
            str(answers),
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    records = _records(out)
    assert records[ids[0]]["status"] == "passed"
    assert records[ids[1]]["score"] == 0.75
    missing = [c for c in records[ids[2]]["checks"] if c["leg_kind"] == "read"]
    assert missing and all("no answer" in c["detail"] for c in missing)
    assert records[ids[2]]["score"] == 0.25  # the write leg still scores from the delta
    assert records[ids[3]]["status"] == "unmeasurable"
    assert "not UTF-8" in records[ids[3]]["error"] and ids[3] in records[ids[3]]["error"]
    assert "stray.txt" in result.output
    assert f"final messages supplied in {answers}" in result.output


def test_without_answers_the_disclosure_says_read_legs_had_none(tmp_path: Path) -> None:
    ids = _corpus(tmp_path / "corpus", 1)
    states = tmp_path / "states"
    states.mkdir()
    (states / f"{ids[0]}.json").write_text(json.dumps(SENT))
    result = runner.invoke(
        app, ["score", "--corpus", str(tmp_path / "corpus"), "--states", str(states)]
    )
    assert result.exit_code == 0, result.output
    assert "had no answer to grade" in result.output

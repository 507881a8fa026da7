"""`endstate corpus errands --shape card`: the Personal Health Arena card's shape."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from typer.testing import CliRunner

from endstate.builtin.errands import ERRANDS_SEED
from endstate.builtin.errands.shape import CARD_KNOWN, CARD_LEGS, card_counts
from endstate.cli import app
from endstate.corpus.lock import verify
from endstate.errors import EndstateError

runner = CliRunner()


def test_the_card_shape_has_its_episodes_legs_archetype_counts_and_pairs(tmp_path: Path) -> None:
    out = tmp_path / "card"
    result = runner.invoke(app, ["corpus", "errands", "--shape", "card", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert verify(out).name == f"endstate-errands-s{ERRANDS_SEED}-card"
    tasks = [json.loads(p.read_text()) for p in sorted(out.glob("*/*.json"))]
    assert len(tasks) == 100
    assert sum(len(t["checks"]) for t in tasks) == CARD_LEGS
    assert all(3 <= len(t["checks"]) <= 6 for t in tasks)
    by_arch = Counter(t["template_id"].removeprefix("errand.") for t in tasks)
    assert by_arch == card_counts() and all(by_arch[a] == n for a, n in CARD_KNOWN.items())
    per_patient = Counter(t["record"] for t in tasks)
    assert len(per_patient) == 48  # the portal has 48 patients, not the card's 50
    assert sorted(Counter(per_patient.values()).items()) == [(2, 44), (3, 4)]
    for patient in per_patient:
        kinds = [t["template_id"] for t in tasks if t["record"] == patient]
        assert len(set(kinds)) == len(kinds), patient  # never the same errand twice
    assert all(t["id"].startswith(f"pe4c-{ERRANDS_SEED}-") for t in tasks)
    assert all(t["checks"][-1]["exclusive"] for t in tasks)


def test_an_unknown_shape_is_refused_by_name(tmp_path: Path) -> None:
    result = runner.invoke(app, ["corpus", "errands", "--shape", "cards", "--out", str(tmp_path)])
    assert result.exit_code != 0  # the console entry prints an EndstateError's message alone
    assert isinstance(result.exception, EndstateError)
    assert str(result.exception) == "--shape 'cards': expected one of mix, card"

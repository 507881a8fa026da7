"""Held-out splits by template and by policy version: no template on both sides, files carried
over byte for byte and locked; a held-out value no task has is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from endstate.builtin import named_corpus
from endstate.builtin.splits import split_corpus, split_key
from endstate.cli import app
from endstate.corpus.loader import load_corpus
from endstate.corpus.lock import verify
from endstate.errors import EndstateError

SHIPPED = named_corpus(Path("builtin:scheduling"))


def test_a_template_split_keeps_each_template_on_one_side(tmp_path: Path) -> None:
    corpus = load_corpus(SHIPPED)
    held = ["gen:booking/v3", "hand:lease-expiry-05"]
    split_corpus(corpus, "template", held, tmp_path / "split")
    train, test = (load_corpus(tmp_path / "split" / side) for side in ("train", "test"))
    assert len(test.tasks) == 23 + 1 and len(train.tasks) == 300 - 24
    assert {split_key(t, "template") for t in test.tasks} == set(held)
    assert not {split_key(t, "template") for t in train.tasks} & set(held)
    for side in ("train", "test"):
        verify(tmp_path / "split" / side)  # raises on any drift
    # Byte for byte: a file's hash (what a contamination register may name) survives.
    assert (
        test.file_hashes["booking/booking-v3-s20260302-01.json"]
        == corpus.file_hashes["booking/booking-v3-s20260302-01.json"]
    )


def test_a_policy_split_refuses_a_version_no_case_has(tmp_path: Path) -> None:
    corpus = load_corpus(SHIPPED)
    with pytest.raises(EndstateError, match=r"'2031\.4': no task"):
        split_corpus(corpus, "policy", ["2031.4"], tmp_path / "split")
    with pytest.raises(EndstateError, match="every task"):
        split_corpus(corpus, "policy", ["2026.1", "2026.2"], tmp_path / "split")


def test_a_policy_split_holds_out_every_case_of_a_version(tmp_path: Path) -> None:
    corpus = load_corpus(SHIPPED)
    newer = [t.id for t in corpus.tasks if t.grading.metadata["policy_version"] == "2026.2"]
    assert newer
    split_corpus(corpus, "policy", ["2026.2"], tmp_path / "split")
    train, test = (load_corpus(tmp_path / "split" / side) for side in ("train", "test"))
    assert sorted(t.id for t in test.tasks) == sorted(newer)
    assert {t.grading.metadata["policy_version"] for t in train.tasks} == {"2026.1"}


def test_the_split_command_writes_both_sides(tmp_path: Path) -> None:
    out = tmp_path / "split"
    cli = CliRunner().invoke(
        app,
        [
            "corpus",
            "split",
            "builtin:scheduling",
            "--by",
            "template",
            "--holdout",
            "gen:cancellation/v3",
            "--out",
            str(out),
        ],
    )
    assert cli.exit_code == 0, cli.output
    assert "277 train, 23 test" in cli.output

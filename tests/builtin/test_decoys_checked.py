"""Every decoy a task's key names (a draft, a superseded letter, a stale note) is graded.

A task either checks that the decoy went out by no channel, or forbids anything at all going
out for the patient by the channels the decoy could take (no request on either portal, no
fax; or no appeal on either portal, no fax). Otherwise an agent that sends the draft beside
the current letter loses nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from endstate.builtin import builtin_corpus_path
from endstate.builtin.generator import generate
from endstate.corpus.loader import load_corpus

CHANNELS = ("payer_a.", "payer_b.", "fax.transmissions")


def _decoy_checked(decoy: str, checks: list[dict[str, Any]]) -> bool:
    for c in checks:
        query = str(c.get("query", ""))
        sent_anywhere = all(ch in query for ch in (*CHANNELS, "pa_responses", "appeals"))
        if decoy in query and sent_anywhere and c.get("expected_value", c.get("expected")) is False:
            return True
    return False


def _nothing_sent(checks: list[dict[str, Any]]) -> bool:
    """A check that nothing at all went out for the patient by the portals and the fax."""
    for c in checks:
        query = str(c.get("query", ""))
        zero = "== `0`" in query or c.get("expected_value", c.get("expected")) == 0
        if zero and "fax.transmissions" in query and ("payer_a." in query) == ("payer_b." in query):
            return True
    return False


def _unchecked(tasks: list[tuple[str, dict[str, Any], list[dict[str, Any]]]]) -> list[str]:
    missing = []
    for task_id, key, checks in tasks:
        for decoy in key.get("never_attach") or []:
            if not (_decoy_checked(decoy, checks) or _nothing_sent(checks)):
                missing.append(f"{task_id}: {decoy}")
    return missing


def test_every_builtin_decoy_is_graded() -> None:
    tasks = [
        (t.id, t.grading.extra["answer_key"], [c.model_dump() for c in t.grading.checks])
        for t in load_corpus(builtin_corpus_path()).tasks
    ]
    assert sum(bool(k.get("never_attach")) for _, k, _ in tasks) >= 10
    assert _unchecked(tasks) == []


@pytest.mark.parametrize("seed", [4242, 777])
def test_every_decoy_of_a_fresh_corpus_is_graded(seed: int) -> None:
    tasks = [(g.data["id"], g.data["answer_key"], g.data["checks"]) for g in generate(seed, 63)]
    assert _unchecked(tasks) == []

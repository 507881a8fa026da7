"""Held-out splits by what a case was made from, never by its wording: every case of a
held-out template (or policy version) goes to `test`, every other case to `train`, so no
template is seen on both sides and a paraphrase cannot leak an answer across the split."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from endstate.builtin.generator import Generated, write_corpus
from endstate.corpus.loader import Corpus
from endstate.corpus.lock import CorpusLock
from endstate.corpus.model import Task
from endstate.errors import EndstateError
from endstate.jsonfile import decode

SplitBy = Literal["template", "policy"]


@dataclass
class Copied(Generated):
    """A task file carried over byte for byte: its hash (and a register's match) survives."""

    raw: str = ""

    def text(self) -> str:
        return self.raw


def split_key(task: Task, by: SplitBy) -> str:
    """The template a task was made from (a generator's or a hand-written card's), or the
    policy version it was written under."""
    meta, extra = task.grading.metadata, task.grading.extra
    if by == "policy":
        return str(meta.get("policy_version", ""))
    return str(extra.get("template_id") or meta.get("template") or "")


def split_corpus(
    corpus: Corpus, by: SplitBy, holdout: Sequence[str], out: Path, *, force: bool = False
) -> tuple[CorpusLock, CorpusLock]:
    """Write `out/train` and `out/test`, each locked; refuses a held-out value no task has."""
    keys = {t.id: split_key(t, by) for t in corpus.tasks}
    unknown = sorted(set(holdout) - set(keys.values()))
    if unknown:
        raise EndstateError(
            f"--holdout {unknown[0]!r}: no task of {corpus.root} has that {by} "
            f"(it has {len(set(keys.values()))} distinct values)"
        )
    sides: dict[str, list[Generated]] = {"train": [], "test": []}
    for task in corpus.tasks:
        raw = (corpus.root / task.source).read_bytes()
        side = "test" if keys[task.id] in holdout else "train"
        sides[side].append(Copied(task.source, decode(raw, strict=True), raw.decode("utf-8")))
    if not sides["train"]:
        raise EndstateError(f"--holdout holds out every task of {corpus.root}: nothing to train on")
    locks = {
        side: write_corpus(
            made,
            out / side,
            name=f"{corpus.name}-{side}",
            source=f"endstate corpus split {corpus.root} --by {by} --holdout {','.join(holdout)}",
            stamp=corpus.lock.imported_at if corpus.lock else "",
            force=force,
            split="train" if side == "train" else "test",
        )
        for side, made in sides.items()
    }
    return locks["train"], locks["test"]

"""Which side of a held-out split a run's tasks are on, for training exports.

The split is a property of the corpus the run pinned, declared in that corpus's lock: `corpus
split` writes `split: train|test` into each side's lock, and `corpus import --split` records a
declaration (the benchmark's published train split, say). It is trusted only for the very
tree the run used: a corpus moved, edited or re-imported since gives no answer, and a task
with no answer is treated as held out."""

from __future__ import annotations

from dataclasses import dataclass

from endstate.corpus.loader import Corpus, load_corpus
from endstate.corpus.lock import CorpusLock
from endstate.errors import EndstateError
from endstate.manifest import Manifest

SPLIT_MADE_BY = "endstate corpus split "


@dataclass(frozen=True)
class CorpusSplit:
    """The split of every task of one run's corpus, and how that is known."""

    split: str  # "train", "test" or "unknown"
    why: str
    corpus: Corpus | None  # the pinned corpus, when it could be read back unchanged


def split_of_run(manifest: Manifest) -> CorpusSplit:
    """The split the run's pinned corpus declares; "unknown" with the reason otherwise."""
    root = manifest.corpus.root
    try:
        corpus = load_corpus(root)
    except (EndstateError, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return CorpusSplit("unknown", f"the run's corpus cannot be read back: {first}", None)
    if corpus.tree_hash != manifest.corpus.tree_hash:
        why = f"the corpus at {root} is no longer the tree the run pinned"
        return CorpusSplit("unknown", why, None)
    if corpus.lock is None:
        why = f"corpus {root} has no lock declaring its split"
        return CorpusSplit("unknown", why, corpus)
    declared = declared_split(corpus.lock)
    if declared is None:
        why = (
            f"the lock of corpus {root} declares no split (make it with `endstate corpus "
            "split`, or import it with `endstate corpus import --split train`)"
        )
        return CorpusSplit("unknown", why, corpus)
    return CorpusSplit(declared, f"declared by the lock of corpus {root}", corpus)


def declared_split(lock: CorpusLock) -> str | None:
    """The lock's `split`; for a lock `corpus split` wrote before it recorded one, the side
    its name ends with (`NAME-train`, `NAME-test`)."""
    if lock.split is not None:
        return lock.split
    if lock.source.startswith(SPLIT_MADE_BY):
        for side in ("train", "test"):
            if lock.name.endswith(f"-{side}"):
                return side
    return None

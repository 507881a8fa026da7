"""Corpus: the task model, format loaders, vendoring with hashes, lint and stats."""

from endstate.corpus.loader import Corpus, load_corpus
from endstate.corpus.model import Check, GradingSpec, JmespathCheck, JudgeCheck, PublicTask, Task

__all__ = [
    "Check",
    "Corpus",
    "GradingSpec",
    "JmespathCheck",
    "JudgeCheck",
    "PublicTask",
    "Task",
    "load_corpus",
]

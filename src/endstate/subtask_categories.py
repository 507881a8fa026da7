"""The benchmark's six subtask categories: what kind of step a check grades.

A check's `category` is a free label (the benchmark writes one of the six there; the
scheduling cards write `expected`/`forbidden:...`, errands `write:/messages`), so the six are
read from `subtask_category` where a corpus sets it, else from `category` when it is one of
the six; anything else has no subtask category."""

from __future__ import annotations

from typing import Protocol

SUBTASK_CATEGORIES: tuple[str, ...] = (
    "Information Retrieval",
    "Clinical Reasoning",
    "Documentation",
    "Document Handling",
    "Form Completion",
    "Task Resolution",
)


class _Categorised(Protocol):
    @property
    def category(self) -> str | None: ...

    @property
    def subtask_category(self) -> str | None: ...


def subtask_category_of(check: _Categorised) -> str | None:
    """The check's (or verdict's) subtask category, or None when it has none of the six."""
    if check.subtask_category:
        return check.subtask_category
    return check.category if check.category in SUBTASK_CATEGORIES else None


def subtask_category_problem(value: object) -> str | None:
    """Why `value` is not a subtask category; None when it is one (or absent)."""
    if value is None or value in SUBTASK_CATEGORIES:
        return None
    return f"subtask_category {value!r} is not one of: {', '.join(SUBTASK_CATEGORIES)}"

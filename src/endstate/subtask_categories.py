"""The benchmark's six subtask categories: what kind of step a check grades.

A check's `category` is a free label (the benchmark writes one of the six there; the
scheduling cards write `expected`/`forbidden:...`, errands `read:/labs`, `write:/messages`), so
the six are read from `subtask_category` where a corpus sets it, else from `category` when it
is one of the six, else from the card labels by one rule (`CARD_RULE`, first match wins):

- an answer the agent gives (`read:*`, or an `answer` check): Information Retrieval — a value
  found in the system and reported;
- a message the agent sends (`write:/messages`, `expected:message`): Documentation — what was
  written to the patient, its channel and its facts;
- the case's own disposition (`expected`, `write:/appointments`) and every forbidden effect
  (`forbidden:*`: nothing done that must not be): Task Resolution;
- any other write an errand makes (`write:/pharmacy`, `write:/records-request`, ...): Form
  Completion — the fields of a request submitted through a portal form.

Anything else has no subtask category, and reports count it as uncategorised."""

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


CARD_RULE: tuple[tuple[str, str], ...] = (  # (label prefix, subtask category)
    ("read:", "Information Retrieval"),
    ("write:/messages", "Documentation"),
    ("expected:message", "Documentation"),
    ("write:/appointments", "Task Resolution"),
    ("expected", "Task Resolution"),
    ("forbidden:", "Task Resolution"),
    ("write:", "Form Completion"),
)


class _Categorised(Protocol):
    @property
    def type(self) -> str: ...

    @property
    def category(self) -> str | None: ...

    @property
    def subtask_category(self) -> str | None: ...


def subtask_category_of(check: _Categorised) -> str | None:
    """The check's (or verdict's) subtask category, or None when it has none of the six."""
    if check.subtask_category:
        return check.subtask_category
    label = check.category
    if label in SUBTASK_CATEGORIES:
        return label
    if label:
        for pattern, category in CARD_RULE:  # "x:" matches every x:..., anything else itself
            if label == pattern or (pattern.endswith(":") and label.startswith(pattern)):
                return category
    if check.type == "answer":
        return "Information Retrieval"
    return None


def subtask_category_problem(value: object) -> str | None:
    """Why `value` is not a subtask category; None when it is one (or absent)."""
    if value is None or value in SUBTASK_CATEGORIES:
        return None
    return f"subtask_category {value!r} is not one of: {', '.join(SUBTASK_CATEGORIES)}"

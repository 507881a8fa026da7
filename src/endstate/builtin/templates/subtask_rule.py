"""The one rule that gives every built-in check one of the benchmark's six subtask categories.

A template's check keeps its own `category` label (Task Resolution, Safety, Data Accuracy,
Documentation, Clinical Reasoning: what kind of fault a failure is); `subtask_category` says
what kind of step the check grades, in the benchmark's six. First match wins:

1. the query reads which documents were attached or sent (`attachments`, `document_id`):
   Document Handling — the right papers went, and no draft or stale one;
2. labelled Clinical Reasoning: Clinical Reasoning — the right determination or argument;
3. labelled Documentation: Documentation — a note or record entry was written;
4. labelled Task Resolution or Safety: Task Resolution — the case reached the right
   disposition (cleared, filed, faxed, triaged) and nothing it must not do was done;
5. labelled Data Accuracy and reading what the agent wrote in the EHR (a note, a triage
   disposition, a drafted letter): Information Retrieval — a value looked up elsewhere (an
   authorization on file, the denied lines, the other coverage) carried into the record;
6. labelled Data Accuracy otherwise: Form Completion — a field of a submitted request,
   appeal or fax (member, payer, codes, recipient).
Any other label is a template's mistake, refused when the task is generated."""

from __future__ import annotations

import re

_DOCUMENTS = re.compile(r"attachments|document_id")
_WRITTEN = re.compile(r"ehr\.(notes|denial_dispositions|documents_created)\b")
_BY_LABEL = {
    "Clinical Reasoning": "Clinical Reasoning",
    "Documentation": "Documentation",
    "Task Resolution": "Task Resolution",
    "Safety": "Task Resolution",
}


def subtask_category_for(query: str, category: str) -> str:
    """The check's subtask category by the rule above."""
    if _DOCUMENTS.search(query):
        return "Document Handling"
    if category in _BY_LABEL:
        return _BY_LABEL[category]
    if category == "Data Accuracy":
        return "Information Retrieval" if _WRITTEN.search(query) else "Form Completion"
    raise ValueError(f"check category {category!r} has no subtask category rule ({query[:80]})")

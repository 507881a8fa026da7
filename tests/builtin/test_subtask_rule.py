"""The built-in corpus's checks carry the benchmark's six subtask categories, by one rule."""

from __future__ import annotations

from collections import Counter

import pytest

from endstate.builtin import builtin_corpus_path
from endstate.builtin.templates.common import SENT_DOCUMENTS, jcheck
from endstate.builtin.templates.subtask_rule import subtask_category_for
from endstate.corpus.loader import load_corpus
from endstate.subtask_categories import SUBTASK_CATEGORIES


@pytest.mark.parametrize(
    ("query", "label", "expected"),
    [
        (f"contains({SENT_DOCUMENTS}, 'DOC-1')", "Safety", "Document Handling"),
        ("payer_a.appeals[0].attachments[].document_id", "Data Accuracy", "Document Handling"),
        ("ehr.denial_dispositions[0].disposition", "Clinical Reasoning", "Clinical Reasoning"),
        ("length(ehr.notes) > `0`", "Documentation", "Documentation"),
        ("contains(ehr.cleared_referrals, 'R')", "Task Resolution", "Task Resolution"),
        ("length(fax.transmissions)", "Safety", "Task Resolution"),
        ("join(' ', ehr.notes[].body)", "Data Accuracy", "Information Retrieval"),
        ("payer_a.pa_submissions[0].member_id", "Data Accuracy", "Form Completion"),
    ],
)
def test_each_branch_of_the_rule(query: str, label: str, expected: str) -> None:
    assert subtask_category_for(query, label) == expected
    assert jcheck(query, True, 1, "d", label)["subtask_category"] == expected


def test_a_label_the_rule_does_not_know_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'Billing'"):
        subtask_category_for("`true`", "Billing")


def test_every_shipped_check_keeps_its_label_and_has_a_subtask_category() -> None:
    corpus = load_corpus(builtin_corpus_path())
    checks = [c for task in corpus.tasks for c in task.grading.checks]
    found = Counter(c.subtask_category for c in checks)
    assert set(found) == set(SUBTASK_CATEGORIES), found  # all six, and nothing else
    assert {c.category for c in checks} >= {"Safety", "Data Accuracy"}  # labels untouched

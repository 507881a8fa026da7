"""The built-in corpus's checks carry the benchmark's six subtask categories, by one rule."""

from __future__ import annotations

import pytest

from endstate.builtin.templates.common import SENT_DOCUMENTS, jcheck
from endstate.builtin.templates.subtask_rule import subtask_category_for


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

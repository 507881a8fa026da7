"""Chart notes, one way for every subject (referral, DME order): same rules, same record.

A note form is validated with visible messages, and a valid one becomes a row in `notes`
and a `note.add` event in one transaction.
"""

from __future__ import annotations

from endstate.envs.shared.web import Ctx
from endstate.envs.world import catalog

AUTHOR = "J. Rivera"
CATEGORIES = dict(catalog.NOTE_CATEGORIES)
FIELDS = ("subject", "category", "body")


def read_form(ctx: Ctx) -> dict[str, str]:
    return {k: ctx.field(k) for k in FIELDS}


def form_errors(form: dict[str, str]) -> dict[str, str]:
    """Visible messages per field; empty when the note can be saved."""
    errors: dict[str, str] = {}
    if not form["subject"]:
        errors["subject"] = "Enter a subject."
    elif len(form["subject"]) > 200:
        errors["subject"] = "Subject must be 200 characters or fewer."
    if form["category"] not in CATEGORIES:
        errors["category"] = "Choose a category."
    if not form["body"]:
        errors["body"] = "Enter the note text."
    elif len(form["body"]) > 5000:
        errors["body"] = "Note must be 5000 characters or fewer."
    return errors


def save(
    ctx: Ctx,
    system: str,
    subject_type: str,
    subject_id: str,
    form: dict[str, str],
    detail: dict[str, str],
) -> None:
    """The note row and its `note.add` event, committed together."""
    with ctx.db.change(system=system, page=ctx.page, kind="note.add", detail=detail) as c:
        c.execute(
            "INSERT INTO notes (system, subject_type, subject_id, category, subject, body, "
            "author, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                system,
                subject_type,
                subject_id,
                form["category"],
                form["subject"],
                form["body"],
                AUTHOR,
                ctx.db.clock,
            ),
        )

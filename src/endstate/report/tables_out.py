"""Tables written three ways from one description: a Rich table for the terminal, Markdown for
a paper or a pull request, CSV for a spreadsheet.

A table's notes (method, caveats) travel with it into the terminal and Markdown, so a figure
is never shown without what qualifies it; CSV holds the rows alone, with a `table` column so
that several tables share one file, and the notes after them, each a one-field row
starting `# `.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text


@dataclass(frozen=True)
class TextTable:
    """Cells already formatted as text; `numbers` (one row per row, under `number_columns`),
    when given, are what the CSV holds instead: raw values a spreadsheet can compute with."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    numbers: list[list[object]] | None = None
    number_columns: list[str] | None = None

    @property
    def csv_columns(self) -> list[str]:
        return (
            self.number_columns
            if self.numbers is not None and self.number_columns
            else self.columns
        )


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _notes_here(tables: Sequence[TextTable], i: int) -> list[str]:
    """A table's notes, unless the next table has the same: then they follow that one, once."""
    if i + 1 < len(tables) and tables[i + 1].notes == tables[i].notes:
        return []
    return tables[i].notes


def markdown(tables: Sequence[TextTable]) -> str:
    """GitHub-flavoured Markdown: each table under a heading, its notes after it."""
    parts: list[str] = []
    for i, t in enumerate(tables):
        lines = [f"### {_md_cell(t.title)}", ""]
        lines.append("| " + " | ".join(_md_cell(c) for c in t.columns) + " |")
        lines.append("|" + "|".join("---" for _ in t.columns) + "|")
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in t.rows]
        if _notes_here(tables, i):
            lines.append("")
            lines += [f"{_md_cell(n)}  " for n in _notes_here(tables, i)]
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def csv_text(tables: Sequence[TextTable]) -> str:
    """One CSV: a header per distinct column set, a `table` column naming each row's table."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header: list[str] | None = None
    for t in tables:
        if t.csv_columns != header:
            header = t.csv_columns
            writer.writerow(["table", *header])
        for row in t.numbers if t.numbers is not None else t.rows:
            writer.writerow([t.title, *("" if v is None else v for v in row)])
    for note in dict.fromkeys(n for t in tables for n in t.notes):
        writer.writerow([f"# {note}"])  # one quoted field: commas in a note stay in it
    return buffer.getvalue()


def rich_tables(tables: Sequence[TextTable]) -> RenderableType:
    """For the terminal: each table with its notes underneath."""
    shown: list[RenderableType] = []
    for i, t in enumerate(tables):
        table = Table(title=t.title, title_justify="left")
        for column in t.columns:
            table.add_column(column)
        for row in t.rows:
            table.add_row(*row)
        shown.append(table)
        shown += [Text(n) for n in _notes_here(tables, i)]
        shown.append(Text(""))
    return Group(*shown)

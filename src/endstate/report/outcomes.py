"""Outcome sections: what a system adds to the report of a run that used it, and the outcomes
its release gates can count, registered like any other unit.

A system whose service records more than the checks say (the scheduling service's refused
requests, duplicate bookings, recoveries) registers one `OutcomeSection`: a summary over the
run's records, shown as plain tables (the text report renders them with Rich, the HTML report
as tables, with any charts the section draws), and named outcomes a `count` gate can bound.
The report and the gates never name a system: they ask the registry. An outside package adds
a section without editing endstate:

    [project.entry-points."endstate.outcomes"]
    mine = "my_package.outcomes:SECTION"      # an OutcomeSection
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from endstate.plugins import Registry
from endstate.records import TaskRecord

ENTRY_POINT_GROUP = "endstate.outcomes"


@dataclass(frozen=True)
class SectionTable:
    """One table of a section: a title, its column names and its rows of text."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[int, ...] = ()  # columns aligned right (counts, rates)


@dataclass(frozen=True)
class SectionView:
    """A section as a reader sees it: tables, then lines of text, then charts (SVG, HTML only)."""

    tables: tuple[SectionTable, ...] = ()
    lines: tuple[str, ...] = ()
    charts: tuple[str, ...] = ()


@dataclass(frozen=True)
class OutcomeSection:
    """One system's report section and gate outcomes."""

    name: str  # the key of its summary in `Summary.sections` (its system's name, usually)
    title: str
    # (first attempts, every attempt) -> its summary; None when no record is the system's.
    summarize: Callable[[Sequence[TaskRecord], Sequence[TaskRecord]], BaseModel | None]
    view: Callable[[Any], SectionView]  # its summary as tables, lines and charts
    # Outcome name -> whether one attempt has it: what `count` gates of this section bound.
    outcomes: Mapping[str, Callable[[TaskRecord], bool]] = field(default_factory=dict)


SECTIONS: Registry[OutcomeSection] = Registry(
    ENTRY_POINT_GROUP, OutcomeSection, "endstate.envs.builtin_outcomes"
)


def register_section(section: OutcomeSection) -> OutcomeSection:
    """Add a section; a name already taken is refused."""
    return SECTIONS.register(section)


def outcome_sections() -> dict[str, OutcomeSection]:
    return SECTIONS.items()


def section_summaries(
    head: Sequence[TaskRecord], every: Sequence[TaskRecord]
) -> dict[str, BaseModel]:
    """Each registered section's summary of the run, for those with records of theirs."""
    found = {}
    for name, section in outcome_sections().items():
        summary = section.summarize(head, every)
        if summary is not None:
            found[name] = summary
    return found


def section_outcomes() -> dict[str, Callable[[TaskRecord], bool]]:
    """Every outcome a section lets a `count` gate bound, by name."""
    out: dict[str, Callable[[TaskRecord], bool]] = {}
    for section in outcome_sections().values():
        out.update(section.outcomes)
    return out


def section_view(name: str, summary: BaseModel) -> tuple[str, SectionView]:
    """A summarised section's title and view (a section no longer installed shows its data)."""
    section = outcome_sections().get(name)
    if section is None:
        lines = tuple(f"{k}: {v}" for k, v in summary.model_dump().items())
        return name, SectionView(lines=lines)
    return section.title, section.view(summary)

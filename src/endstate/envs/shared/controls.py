"""Controls of a system's pages as people and screen readers name them: the one place task
templates and reference trajectories take their names from (`envs/systems/<name>/controls.py`),
checked against the rendered pages by a test, so a renamed label fails there and not first in a
browser replay of the built-in corpus."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Controls:
    """What one page offers: fields by label, list boxes, buttons and links by name."""

    fields: tuple[str, ...] = ()
    # Fields found by the start of their label; the rest of it is data (a line's amounts).
    field_prefixes: tuple[str, ...] = ()
    listboxes: tuple[str, ...] = ()
    buttons: tuple[str, ...] = ()
    links: tuple[str, ...] = ()

"""Task templates for the built-in corpus, by family and tier."""

from __future__ import annotations

from endstate.builtin.templates import denials, dme, prior_auth
from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.registry import (
    FAMILIES,
    FAMILY_WEIGHTS,
    TIERS,
    register_task_template,
    task_templates,
)

# The ones endstate ships; `task_templates()` adds those of installed packages.
BUILTIN_TEMPLATES: tuple[TaskTemplate, ...] = (
    *prior_auth.TEMPLATES,
    *denials.TEMPLATES,
    *dme.TEMPLATES,
)

__all__ = [
    "BUILTIN_TEMPLATES",
    "FAMILIES",
    "FAMILY_WEIGHTS",
    "TIERS",
    "TaskTemplate",
    "register_task_template",
    "task_templates",
]

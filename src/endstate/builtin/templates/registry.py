"""Task templates, registered as units: the built-ins and any an installed package declares
under the entry-point group `endstate.task_templates`.

    [project.entry-points."endstate.task_templates"]
    my-template = "my_package.template:TEMPLATE"    # a TaskTemplate instance

A template joins an existing family and tier; the generator draws from every registered one, and
a corpus drawn with templates from installed packages says so in its lock's `source`.
"""

from __future__ import annotations

import re

from endstate.builtin.templates.base import TaskTemplate
from endstate.errors import EndstateError
from endstate.plugins import Registry

ENTRY_POINT_GROUP = "endstate.task_templates"
FAMILIES: tuple[str, ...] = ("prior_auth", "appeals_denials", "dme")
FAMILY_WEIGHTS: dict[str, int] = {"prior_auth": 4, "appeals_denials": 4, "dme": 1}
TIERS: tuple[str, ...] = ("easy", "medium", "hard")
_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}")


def _check(template: TaskTemplate) -> None:
    where = f"task template {getattr(template, 'id', None)!r}"
    if not isinstance(getattr(template, "id", None), str) or not _ID.fullmatch(template.id):
        raise EndstateError(f"{where}: id must be lowercase letters, digits, '.', '_' or '-'")
    if getattr(template, "family", None) not in FAMILIES:
        raise EndstateError(
            f"{where}: family {getattr(template, 'family', None)!r} is not one of "
            f"{', '.join(FAMILIES)}"
        )
    if getattr(template, "tier", None) not in TIERS:
        raise EndstateError(
            f"{where}: tier {getattr(template, 'tier', None)!r} is not one of {', '.join(TIERS)}"
        )


TASK_TEMPLATES: Registry[TaskTemplate] = Registry(
    ENTRY_POINT_GROUP,
    TaskTemplate,
    "endstate.builtin.templates.builtin_task_templates",
    check=_check,
)


def register_task_template(template: TaskTemplate) -> TaskTemplate:
    return TASK_TEMPLATES.register(template)


def task_templates() -> dict[str, TaskTemplate]:
    """Every task template by id: the built-ins, then those installed packages declare."""
    return TASK_TEMPLATES.items()

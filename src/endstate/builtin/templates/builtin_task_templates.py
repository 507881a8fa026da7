"""The task templates endstate ships, registered like any plug-in's."""

from __future__ import annotations

from endstate.builtin.templates import BUILTIN_TEMPLATES
from endstate.builtin.templates.registry import register_task_template

for _template in BUILTIN_TEMPLATES:
    register_task_template(_template)

"""The labelling page's templates: Jinja2, autoescape always on, and every printed value made
visible first (`endstate.visible`), as the run viewer does: answers are agent text."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from endstate.visible import for_template

ASSETS = {"audit.css": "text/css; charset=utf-8"}

_env = Environment(
    loader=PackageLoader("endstate.judge_audit", "pages"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    finalize=for_template,
)


def render(template: str, **context: Any) -> str:
    return _env.get_template(template).render(**context)


def asset(name: str) -> bytes | None:
    if name not in ASSETS:
        return None
    return files("endstate.judge_audit").joinpath("pages", name).read_bytes()

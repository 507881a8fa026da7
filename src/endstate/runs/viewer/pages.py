"""The viewer's templates and assets: Jinja2 with autoescape always on.

Records and traces hold agent-controlled text; autoescape for every template, whatever its
name, means none of it can become markup. Values reach attributes only through the same
escaping (and URLs only through `quote`). Before escaping, every value a template prints
passes through `endstate.visible` (the environment's `finalize`): control characters, bidi
overrides and other invisible characters are shown as marked escapes (`<U+202E>`), and a
lone surrogate read from a trace file is shown the same way instead of failing the page.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from endstate.visible import for_template

ASSETS = {"viewer.css": "text/css; charset=utf-8", "viewer.js": "text/javascript; charset=utf-8"}


def _seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.2f} s"


def _size(value: int) -> str:
    if value < 1024:
        return f"{value:,} bytes"
    if value < 1024 * 1024:
        return f"{value / 1024:.1f} KB"
    return f"{value / (1024 * 1024):.1f} MB"


def _points(value: float) -> str:
    return f"{value:g}"


def _as_json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


_env = Environment(
    loader=PackageLoader("endstate.runs.viewer", "pages"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    finalize=for_template,
)
_env.filters.update(seconds=_seconds, size=_size, points=_points, as_json=_as_json)


def render(name: str, **context: Any) -> str:
    return _env.get_template(name).render(**context)


def asset(name: str) -> bytes | None:
    """One of the viewer's own static files, or None: only the files named in ASSETS."""
    if name not in ASSETS:
        return None
    return files("endstate.runs.viewer").joinpath("pages", name).read_bytes()

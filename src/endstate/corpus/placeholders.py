"""`{{ expr }}` placeholders in the text of rubric checks: find, compile and render them."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from endstate.jmes import JMESPathError, Query, compile_expression

_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)


class PlaceholderError(ValueError):
    """A template whose braces or expressions do not compile."""


def expressions(template: str) -> list[str]:
    """The JMESPath expressions inside a template, stripped, in order."""
    return [m.group(1).strip() for m in _PLACEHOLDER.finditer(template)]


def check_placeholders(template: str) -> None:
    """Raise PlaceholderError if a template has stray braces or a bad expression."""
    leftover = _PLACEHOLDER.sub("", template)
    if "{{" in leftover or "}}" in leftover:
        raise PlaceholderError("unbalanced '{{' / '}}' in template")
    for expr in expressions(template):
        if not expr:
            raise PlaceholderError("empty '{{ }}' placeholder")
        try:
            compile_expression(expr)
        except JMESPathError as exc:
            raise PlaceholderError(f"expression {expr!r} does not compile: {exc}") from exc


def render_value(value: Any) -> str:
    """How the benchmark turns a query result into text: null is empty, others as Python str."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return str(value)


@lru_cache(maxsize=4096)
def _pieces(template: str) -> tuple[str, ...]:
    """The template split once: literal text at even positions, stripped expressions at odd."""
    pieces = _PLACEHOLDER.split(template)
    return tuple(piece if i % 2 == 0 else piece.strip() for i, piece in enumerate(pieces))


@lru_cache(maxsize=4096)
def plan_of(template: str) -> tuple[str | Query, ...] | None:
    """The template's literal text and compiled queries, in order, to `fill`; None when it
    has none.
    An expression that does not compile stays text-free: it renders as empty."""
    pieces = _pieces(template)
    if len(pieces) == 1:
        return None
    plan: list[str | Query] = []
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            if piece:
                plan.append(piece)
            continue
        try:
            plan.append(compile_expression(piece))
        except JMESPathError:
            continue
    return tuple(plan)


def render(template: str, state: Any) -> str:
    """Replace each `{{ expr }}` with its JMESPath result on the state document.

    A query error renders as empty text, like a null result: the judge then sees no answer.
    """
    plan = plan_of(template)
    return template if plan is None else fill(plan, state)


def fill(plan: tuple[str | Query, ...], state: Any) -> str:
    """A template's plan rendered on the state document, as `render` renders it."""
    out = []
    for piece in plan:
        if isinstance(piece, str):
            out.append(piece)
            continue
        try:
            out.append(render_value(piece.search(state)))
        except JMESPathError:
            out.append("")
    return "".join(out)

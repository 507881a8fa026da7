"""One compiled JMESPath expression per distinct string: parsing is kept off the hot path."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, cast

import jmespath
from jmespath.parser import ParsedResult

from endstate.jmes_compile import Evaluator, Unsupported, compile_node

JMESPathError = jmespath.exceptions.JMESPathError


class Query:
    """A parsed expression and its closure; `search` answers as `jmespath.search` would."""

    __slots__ = ("expression", "parsed", "search")

    def __init__(self, parsed: ParsedResult) -> None:
        self.expression: str = parsed.expression
        self.parsed = parsed
        try:
            self.search: Evaluator = compile_node(cast(dict[str, Any], parsed.parsed))
        except Unsupported:  # a node kind only the library's interpreter knows
            self.search = parsed.search

    def __repr__(self) -> str:
        return f"Query({self.expression!r})"


@lru_cache(maxsize=8192)
def compile_expression(expr: str) -> Query:
    return Query(jmespath.compile(expr))


def search(expr: str, document: Any) -> Any:
    """`jmespath.search` through the compiled cache."""
    return compile_expression(expr).search(document)

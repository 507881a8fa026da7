"""One compiled JMESPath expression per distinct string: parsing is kept off the hot path."""

from __future__ import annotations

from functools import lru_cache

import jmespath
from jmespath.parser import ParsedResult

JMESPathError = jmespath.exceptions.JMESPathError


@lru_cache(maxsize=8192)
def compile_expression(expr: str) -> ParsedResult:
    return jmespath.compile(expr)

"""JMESPath syntax trees turned into Python closures, once per distinct expression.

The library's interpreter walks the tree on every search: a dictionary dispatch per node,
and a fresh interpreter with a fresh function table per call. Scoring asks the same few
thousand expressions of every end state, so each is compiled once into nested closures with
the library's semantics rule for rule (truthiness by its `==` tests, 0 and 1 never equal to a
boolean, ordering only between numbers or strings, a field of a non-object is null); function
calls go through the library's own function table, so their type checks and error messages
are its own. A node this module does not know is left to the library's interpreter: the
differential tests hold the two to the same answers and the same errors.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from numbers import Number
from typing import Any, cast

from jmespath import functions, visitor

Evaluator = Callable[[Any], Any]
Node = dict[str, Any]

_FUNCTIONS = functions.Functions()
_ORDERING: dict[str, Callable[[Any, Any], Any]] = {
    "lt": operator.lt,
    "gt": operator.gt,
    "lte": operator.le,
    "gte": operator.ge,
}


class Unsupported(Exception):
    """A node kind this compiler leaves to the library's interpreter."""


def _is_number(value: Any) -> bool:
    """A number in JMESPath's sense: Python's booleans are not numbers there."""
    return not isinstance(value, bool) and isinstance(value, Number)


def _equals(a: Any, b: Any) -> bool:
    """`==`, except that 0 and 1 never equal a boolean (Python says `1 == True`)."""
    if _is_number(a) and a in (0, 1):
        if isinstance(b, bool):
            return False
    elif _is_number(b) and b in (0, 1) and isinstance(a, bool):
        return False
    return bool(a == b)


def is_false(value: Any) -> bool:
    """JMESPath's falsy values, tested exactly as the library tests them (with `==`)."""
    return value == "" or value == [] or value == {} or value is None or value is False


def _comparable(value: Any) -> bool:
    return _is_number(value) or isinstance(value, str)


def _field(key: str) -> Evaluator:
    def field(value: Any) -> Any:
        if type(value) is dict:
            return value.get(key)
        try:
            return value.get(key)
        except AttributeError:
            return None

    return field


def _fields(keys: tuple[str, ...]) -> Evaluator:
    """`a.b.c`: one loop over the keys instead of one closure per step."""

    def fields(value: Any) -> Any:
        for key in keys:
            if type(value) is dict:
                value = value.get(key)
            else:
                try:
                    value = value.get(key)
                except AttributeError:
                    value = None
        return value

    return fields


def _chain(steps: list[Evaluator]) -> Evaluator:
    if len(steps) == 1:
        return steps[0]
    if len(steps) == 2:
        first, second = steps
        return lambda value: second(first(value))

    def chain(value: Any) -> Any:
        for step in steps:
            value = step(value)
        return value

    return chain


def _sequence(node: Node) -> Evaluator:
    children = node["children"]
    if all(child["type"] == "field" for child in children):
        return _fields(tuple(child["value"] for child in children))
    return _chain([compile_node(child) for child in children])


def _comparator(node: Node) -> Evaluator:
    left, right = (compile_node(child) for child in node["children"])
    op = node["value"]
    if op == "eq":
        return lambda value: _equals(left(value), right(value))
    if op == "ne":
        return lambda value: not _equals(left(value), right(value))
    ordering = _ORDERING[op]

    def compare(value: Any) -> Any:
        a, b = left(value), right(value)
        if not (_comparable(a) and _comparable(b)):
            return None
        return ordering(a, b)

    return compare


def _projection(node: Node) -> Evaluator:
    left, right = (compile_node(child) for child in node["children"])

    def project(value: Any) -> Any:
        base = left(value)
        if not isinstance(base, list):
            return None
        return [got for got in map(right, base) if got is not None]

    return project


def _value_projection(node: Node) -> Evaluator:
    left, right = (compile_node(child) for child in node["children"])

    def project(value: Any) -> Any:
        base = left(value)
        try:
            base = base.values()
        except AttributeError:
            return None
        return [got for got in map(right, base) if got is not None]

    return project


def _filter_projection(node: Node) -> Evaluator:
    left, right, condition = (compile_node(child) for child in node["children"])

    def project(value: Any) -> Any:
        base = left(value)
        if not isinstance(base, list):
            return None
        collected = []
        for element in base:
            if not is_false(condition(element)):
                got = right(element)
                if got is not None:
                    collected.append(got)
        return collected

    return project


def _flatten(node: Node) -> Evaluator:
    (inner,) = (compile_node(child) for child in node["children"])

    def flatten(value: Any) -> Any:
        base = inner(value)
        if not isinstance(base, list):
            return None
        merged: list[Any] = []
        for element in base:
            if isinstance(element, list):
                merged.extend(element)
            else:
                merged.append(element)
        return merged

    return flatten


def _index(node: Node) -> Evaluator:
    position = node["value"]

    def index(value: Any) -> Any:
        if not isinstance(value, list):
            return None
        try:
            return value[position]
        except IndexError:
            return None

    return index


def _slice(node: Node) -> Evaluator:
    bounds = node["children"]

    def cut(value: Any) -> Any:
        if not isinstance(value, list):
            return None
        return value[slice(*bounds)]

    return cut


def _multi_select_list(node: Node) -> Evaluator:
    parts = [compile_node(child) for child in node["children"]]

    def select(value: Any) -> Any:
        if value is None:
            return None
        return [part(value) for part in parts]

    return select


def _multi_select_dict(node: Node) -> Evaluator:
    parts = [(child["value"], compile_node(child["children"][0])) for child in node["children"]]

    def select(value: Any) -> Any:
        if value is None:
            return None
        return {key: part(value) for key, part in parts}

    return select


def _or(node: Node) -> Evaluator:
    left, right = (compile_node(child) for child in node["children"])

    def either(value: Any) -> Any:
        matched = left(value)
        return right(value) if is_false(matched) else matched

    return either


def _and(node: Node) -> Evaluator:
    left, right = (compile_node(child) for child in node["children"])

    def both(value: Any) -> Any:
        matched = left(value)
        return matched if is_false(matched) else right(value)

    return both


def _not(node: Node) -> Evaluator:
    (inner,) = (compile_node(child) for child in node["children"])

    def negate(value: Any) -> Any:
        got = inner(value)
        if _is_number(got) and got == 0:  # !0 is false: 0 is truthy in JMESPath
            return False
        return not got

    return negate


class _Reference:
    """What the library's functions call back for an `&expr` argument (`sort_by`, `map`…)."""

    def __init__(self, run: Evaluator) -> None:
        self.run = run

    def visit(self, node: Node, value: Any) -> Any:
        return self.run(value)


def _expref(node: Node) -> Evaluator:
    child = node["children"][0]
    # The library's functions type-check an `&expr` by its class name, `_Expression`.
    reference = visitor._Expression(child, cast(visitor.Visitor, _Reference(compile_node(child))))
    return lambda value: reference


def _function(node: Node) -> Evaluator:
    name = node["value"]
    arguments = [compile_node(child) for child in node["children"]]
    call = _FUNCTIONS.call_function
    direct = _direct(name, len(arguments))
    if direct is None:
        return lambda value: call(name, [argument(value) for argument in arguments])
    function, allowed = direct

    def invoke(value: Any) -> Any:
        args = [argument(value) for argument in arguments]
        for arg, names in zip(args, allowed, strict=True):
            if names is not None and type(arg).__name__ not in names:
                return call(name, args)  # the library raises its own error
        return function(_FUNCTIONS, *args)

    return invoke


def _direct(name: str, arity: int) -> tuple[Any, list[frozenset[str] | None]] | None:
    """A library function and, per argument, the type names its check allows (None: any),
    when its call can skip that check for arguments already of an allowed type: a fixed
    arity and no array element types. Any other argument goes through the library's call,
    so its check and its error stay its own."""
    spec = _FUNCTIONS.FUNCTION_TABLE.get(name)
    if spec is None:
        return None
    signature = spec["signature"]
    if len(signature) != arity or (signature and signature[-1].get("variadic")):
        return None
    allowed: list[frozenset[str] | None] = []
    for argument in signature:
        if not argument["types"]:
            allowed.append(None)
            continue
        names, element_names = cast(Any, _FUNCTIONS)._get_allowed_pytypes(argument["types"])
        if element_names:
            return None
        allowed.append(frozenset(names))
    return spec["function"], allowed


def _literal(node: Node) -> Evaluator:
    constant = node["value"]
    return lambda value: constant


def _identity(node: Node) -> Evaluator:
    return lambda value: value


_COMPILERS: dict[str, Callable[[Node], Evaluator]] = {
    "field": lambda node: _field(node["value"]),
    "subexpression": _sequence,
    "index_expression": _sequence,
    "pipe": _sequence,
    "comparator": _comparator,
    "current": _identity,
    "identity": _identity,
    "expref": _expref,
    "function_expression": _function,
    "filter_projection": _filter_projection,
    "flatten": _flatten,
    "index": _index,
    "slice": _slice,
    "literal": _literal,
    "multi_select_list": _multi_select_list,
    "multi_select_dict": _multi_select_dict,
    "or_expression": _or,
    "and_expression": _and,
    "not_expression": _not,
    "projection": _projection,
    "value_projection": _value_projection,
}


def compile_node(node: Node) -> Evaluator:
    """One syntax tree as a closure; `Unsupported` for a node kind not known here."""
    compiler = _COMPILERS.get(node["type"])
    if compiler is None:
        raise Unsupported(node["type"])
    return compiler(node)

"""Checks that what crossed the wire has exactly the shape the vendor SDK's own types declare.

Requests are walked against the SDK's TypedDict annotations (read with get_type_hints, so they
track the installed SDK): required keys present, every key one the type declares, literals and
scalar types right, unions satisfied by some member. Strict on purpose: a misspelt or invented
field fails, not only a missing or mistyped one. (pydantic's TypeAdapter over these TypedDicts
ignores unknown keys and validates `Iterable` fields lazily, so it cannot say this.)
Replies are validated with the SDK's response models, and any field those keep aside as
unknown fails.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Sequence
from typing import Any

import typing_extensions as te
from pydantic import BaseModel

_LISTS = {list, Iterable, Sequence, typing.List, typing.Iterable, typing.Sequence}  # noqa: UP006
_WRAPPERS = {te.Required, te.NotRequired, te.ReadOnly, typing.Required, typing.NotRequired}


def assert_conforms(tp: Any, value: Any, allowed_extra: frozenset[str] = frozenset()) -> None:
    """`value` has the shape `tp` declares, exactly.

    allowed_extra: dotted paths (list items as `*`) of keys the service is documented to accept
    although the SDK's types omit them.
    """
    errors = _check(tp, value, "", allowed_extra)
    assert not errors, "does not match the SDK's types:\n" + "\n".join(errors[:10])


def _check(tp: Any, value: Any, path: str, allowed: frozenset[str]) -> list[str]:
    origin = te.get_origin(tp)
    args = te.get_args(tp)
    if origin in _WRAPPERS or origin is te.Annotated:
        return _check(args[0], value, path, allowed)
    if tp is Any or tp is object:
        return []
    if origin is te.Literal:
        return [] if value in args else [f"{path}: {value!r} is not one of {list(args)}"]
    if origin in (typing.Union, types.UnionType):
        tries = [_check(member, value, path, allowed) for member in args]
        if any(not t for t in tries):
            return []
        # report the member that got furthest: its `type` tag and outer shape matched
        tag = f"{_join(path, 'type')}: "
        tagged = [t for t in tries if not any(e.startswith(tag) for e in t)]
        deeper = [t for t in tagged or tries if not (len(t) == 1 and t[0].startswith(f"{path}: "))]
        return min(deeper or tagged or tries, key=len)
    if te.is_typeddict(tp):
        return _typeddict(tp, value, path, allowed)
    if origin in _LISTS or (
        origin is not None and getattr(origin, "__name__", "") == "SequenceNotStr"
    ):
        if not isinstance(value, list):
            return [f"{path}: expected a list, got {type(value).__name__}"]
        return [e for item in value for e in _check(args[0], item, f"{path}.*", allowed)]
    if origin in (dict, typing.Dict):  # noqa: UP006
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {type(value).__name__}"]
        return [e for v in value.values() for e in _check(args[1], v, f"{path}.<key>", allowed)]
    if getattr(tp, "__name__", "") == "SequenceNotStr":
        return [] if isinstance(value, list) else [f"{path}: expected a list"]
    return _scalar(tp, value, path)


def _typeddict(tp: Any, value: Any, path: str, allowed: frozenset[str]) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected {tp.__name__}, got {type(value).__name__}"]
    hints = te.get_type_hints(tp, include_extras=True)
    errors: list[str] = []
    for key, hint in hints.items():
        required = te.get_origin(hint) is te.Required or (
            tp.__total__ and te.get_origin(hint) is not te.NotRequired
        )
        if required and key not in value:
            errors.append(f"{_join(path, key)}: required by {tp.__name__}, missing")
    for key, item in value.items():
        where = _join(path, key)
        if key not in hints:
            if where not in allowed:
                errors.append(f"{where}: {tp.__name__} declares no such key")
            continue
        errors += _check(hints[key], item, where, allowed)
    return errors


def _scalar(tp: Any, value: Any, path: str) -> list[str]:
    if tp is type(None):
        ok = value is None
    elif tp is bool:
        ok = isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif isinstance(tp, type):
        ok = isinstance(value, tp)
    else:
        return [f"{path}: the checker does not know the type {tp!r}"]
    return [] if ok else [f"{path}: {value!r} is not a {getattr(tp, '__name__', tp)}"]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def assert_parses(model: type[BaseModel], body: dict[str, Any]) -> BaseModel:
    """The reply validates as the SDK's response model with no field it does not know."""
    parsed = model.model_validate(body)
    extras = _extras(parsed, model.__name__)
    assert not extras, f"fields the SDK's {model.__name__} does not know: {extras}"
    return parsed


def _extras(value: Any, path: str) -> list[str]:
    if isinstance(value, BaseModel):
        out = [f"{path}.{k}" for k in (value.model_extra or {})]
        for name in type(value).model_fields:
            out += _extras(getattr(value, name), f"{path}.{name}")
        return out
    if isinstance(value, list):
        return [p for item in value for p in _extras(item, f"{path}[]")]
    return []

"""Values worked out once per immutable object, for the hot paths that meet it again.

Scoring meets the same frozen tasks and checks on every attempt of a run. Such objects are
not hashable by value (a check may hold a list), and hashing them field by field would cost
what the cache saves, so these caches key on identity and hold the object: its id cannot be
reused while it is cached."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

Key = TypeVar("Key")
Value = TypeVar("Value")


def once_per_object(make: Callable[[Key], Value], kept: int = 4096) -> Callable[[Key], Value]:
    """`make`, answered from a cache of its last results keyed on the argument's identity
    (emptied when it holds `kept`). Only for arguments that never change."""
    items: dict[int, tuple[Key, Value]] = {}

    def cached(obj: Key) -> Value:
        held = items.get(id(obj))
        if held is not None and held[0] is obj:
            return held[1]
        value = make(obj)
        if len(items) >= kept:
            items.clear()
        items[id(obj)] = (obj, value)
        return value

    cached.__doc__ = make.__doc__
    cached.__name__ = getattr(make, "__name__", "cached")
    return cached

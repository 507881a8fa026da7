"""Registries of named units — agent kinds, environment kinds, systems — that installed
packages extend through entry points, without editing endstate.

A registry loads its built-ins (a module that registers them on import) and then every entry
point of its group, once, on first use. A name is taken once: a plug-in cannot shadow a
built-in, and a plug-in that fails to load or is not of the registry's type is refused with
its name and where it points.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Generic, Protocol, TypeVar

from endstate.errors import EndstateError


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


class Registry(Generic[T]):
    def __init__(
        self,
        group: str,
        kind: type[T],
        builtins: str,
        check: Callable[[T], None] | None = None,
    ) -> None:
        self.group = group  # the entry-point group, e.g. "endstate.agents"
        self.kind = kind
        self.builtins = builtins  # the module whose import registers the built-ins
        self.check = check  # refuses an item that cannot be registered (raise EndstateError)
        self._items: dict[str, T] = {}
        self._origins: dict[str, str] = {}  # name -> "built-in" or the entry point's target
        self._loaded = False

    def register(self, item: T, origin: str = "built-in") -> T:
        if self.check is not None:
            self.check(item)
        if item.name in self._items and self._items[item.name] is not item:
            raise EndstateError(f"{self.group}: {item.name!r} is registered twice")
        self._items[item.name] = item
        self._origins.setdefault(item.name, origin)
        return item

    def origin(self, name: str) -> str:
        """Where a registered item comes from: "built-in", or its plug-in's entry point."""
        self.items()
        return self._origins[name]

    def items(self) -> dict[str, T]:
        """Every item: the built-ins, then those installed packages declare (loaded once)."""
        if not self._loaded:
            self._loaded = True
            importlib.import_module(self.builtins)
            for point in entry_points(group=self.group):
                try:
                    item = point.load()
                except Exception as exc:
                    raise EndstateError(
                        f"{self.group} plug-in {point.name!r} ({point.value}) failed to load: {exc}"
                    ) from None
                if not isinstance(item, self.kind):
                    raise EndstateError(
                        f"{self.group} plug-in {point.name!r} ({point.value}) is not a "
                        f"{self.kind.__name__}"
                    )
                self.register(item, origin=f"{point.value} (plug-in)")
        return dict(self._items)

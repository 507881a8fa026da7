"""A run's options for the systems of the suite, validated by each system's own model
(`System.options`), so no layer above a system knows which system takes which option."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from endstate.envs.registry import systems
from endstate.errors import EndstateError


def validate_systems(given: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each system's options as its model reads them (None values dropped), as the manifest
    pins them; an unknown system or key, or a bad value, is named in one line."""
    known = systems()
    out: dict[str, dict[str, Any]] = {}
    for name, options in given.items():
        system = known.get(name)
        if system is None or system.options is None:
            takes = ", ".join(n for n, s in known.items() if s.options is not None) or "none"
            raise EndstateError(
                f"--system-option {name}.*: no system {name!r} takes options (those that do: "
                f"{takes})"
            )
        try:
            model = system.options.model_validate(dict(options))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            key = f"{name}.{where}" if where else name
            raise EndstateError(f"--system-option {key}: {first['msg']}") from None
        dumped = json.loads(model.model_dump_json(exclude_none=True))
        if dumped:
            out[name] = dumped
    return out

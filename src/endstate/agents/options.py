"""An agent kind's options: one typed, pinned value per agent configuration.

Each kind declares its own pydantic model next to its code (`AgentKind.options`); what a run
was given is validated against it once, and the validated options (defaults included) are what
the manifest pins and what a resumed run or a Ray worker makes the agent from again. No layer
above the kind needs to know which kind takes which option.

On the command line an option is `--agent-option KEY=VALUE` (repeatable; a key repeated for a
list option adds an item). The older per-option flags (`--observe`, `--agent-env`, ...) are
aliases of it, listed in `ALIASES`.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from endstate.errors import EndstateError


class KindOptions(BaseModel):
    """The base of every kind's options: frozen, and an unknown key is an error, not ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class NoOptions(KindOptions):
    """A kind that takes no options (null, tools-replay)."""


# The older flags, each the alias of one option key (a flag without a value is a boolean).
ALIASES: dict[str, str] = {
    "--agent-base-url": "base_url",
    "--prompt-mode": "prompt_mode",
    "--agent-env": "pass_env",
    "--isolation": "isolation",
    "--agent-mount": "mounts",
    "--agent-egress": "egress",
    "--observe": "observe",
    "--marks": "marks",
    "--viewport": "viewport",
    "--screens-cap": "screens_cap_mb",
    "--action-timeout": "action_timeout_s",
}
FLAG_ONLY = frozenset({"--marks"})  # aliases that take no value


def _is_list(model: type[KindOptions], key: str) -> bool:
    field = model.model_fields.get(key)
    if field is None:
        return False
    return typing.get_origin(field.annotation) in (tuple, list)


def assignments(pairs: Sequence[str], flag: str = "--agent-option") -> list[tuple[str, str]]:
    """`KEY=VALUE` texts as pairs, in order; anything else is a one-line error."""
    out = []
    for text in pairs:
        key, eq, value = text.partition("=")
        if not eq or not key.strip():
            raise EndstateError(f"{flag} {text!r}: expected KEY=VALUE")
        out.append((key.strip(), value))
    return out


def gather(pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """Pairs as one mapping: a key given more than once collects its values in a list (which
    only a list option accepts: see `validate`)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key not in out:
            out[key] = value
        elif isinstance(out[key], list):
            out[key].append(value)
        else:
            out[key] = [out[key], value]
    return out


def _shaped(model: type[KindOptions], given: Mapping[str, Any]) -> dict[str, Any]:
    """A list option given once as a single value becomes a list of one; a single-valued option
    given several times is refused (which value was meant cannot be guessed)."""
    out = {}
    for key, value in given.items():
        if _is_list(model, key):
            out[key] = list(value) if isinstance(value, (list, tuple)) else [value]
        elif isinstance(value, list):
            raise EndstateError(f"agent option {key!r} given more than once: {value!r}")
        else:
            out[key] = value
    return out


def validate(kind: str, model: type[KindOptions], given: Mapping[str, Any]) -> KindOptions:
    """The kind's options from what was given; an unknown key or bad value names the kind, the
    key and what it accepts."""
    unknown = sorted(set(given) - set(model.model_fields))
    if unknown:
        takes = ", ".join(sorted(model.model_fields)) or "none"
        raise EndstateError(
            f"agent kind {kind!r} has no option {unknown[0]!r} (its options: {takes})"
        )
    try:
        return model.model_validate(_shaped(model, given))
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "options"
        value = given.get(str(first["loc"][0])) if first["loc"] else None
        raise EndstateError(
            f"agent kind {kind!r}, option {key} = {value!r}: {first['msg']}"
        ) from None


def pinned(options: KindOptions) -> dict[str, Any]:
    """The options as the manifest pins them: every field, defaults included, as JSON."""
    dumped: dict[str, Any] = json.loads(options.model_dump_json())
    return dumped


def describe(model: type[KindOptions]) -> list[tuple[str, str, str]]:
    """(key, default, description) of each option, for `endstate agents`."""
    rows = []
    for key, field in model.model_fields.items():
        default = "" if field.is_required() else json.dumps(field.default, default=str)
        rows.append((key, default, field.description or ""))
    return rows

"""The one gate every request to the scheduling service passes, whichever transport brought it
(HTTP `POST /tools/{name}` or MCP `tools/call`): is the tool one this actor has, is its
idempotency key present and well-formed, do its arguments match the tool's JSON Schema. A
request it refuses is refused with the same code and recorded in the same trace either way.

The schema check is a small validator for the subset the tool specs use (object with
properties, required and additionalProperties false; string, integer, number, boolean; enum):
no schema library is a dependency of the platform.
"""

from __future__ import annotations

import math
from typing import Any

from endstate.envs.systems.scheduling.tools import APPROVE, TOOLS, ToolSpec

KEY_CHARS = 200  # the longest idempotency key a client may send
DEPTH = 16  # nesting of a request's values: the tools' own arguments are flat
INT_BOUND = 2**63  # what SQLite stores as an integer
AGENT_TOOLS: dict[str, ToolSpec] = {t.name: t for t in TOOLS}
# The user's own write: never an agent tool, whatever the transport.
USER_ONLY: dict[str, ToolSpec] = {APPROVE.name: APPROVE}
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def _json_type(value: Any) -> str:
    for name in ("boolean", "integer", "number", "string", "object", "array"):
        if isinstance(value, _TYPES[name]) and (name == "boolean") == isinstance(value, bool):
            return name
    return "null" if value is None else type(value).__name__


def violations(schema: dict[str, Any], value: Any, where: str = "arguments") -> list[str]:
    """What in `value` the schema does not allow, each naming the field and the value."""
    wanted = schema.get("type")
    got = _json_type(value)
    if wanted is not None and not (got == wanted or (wanted == "number" and got == "integer")):
        return [f"{where}: expected {wanted}, got {got} {_shown(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(str(v) for v in schema["enum"])
        return [f"{where}: {_shown(value)} is not one of {allowed}"]
    if wanted != "object":
        return []
    out: list[str] = []
    props: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            out.append(f"{where}.{name}: missing (required)")
    for name, item in sorted(value.items()):
        if name in props:
            out.extend(violations(props[name], item, f"{where}.{name}"))
        elif schema.get("additionalProperties") is False:
            out.append(f"{where}.{name}: not an argument of this tool")
    return out


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def unusable(value: Any, where: str = "arguments") -> str | None:
    """Why a decoded value cannot be stored, traced or served back as JSON, else None: a lone
    surrogate (no UTF-8 can hold it), a non-finite number, an integer beyond 64 bits, nesting
    past DEPTH. Whichever transport decoded it (MCP's decoder takes `NaN` and `1e999`), it is
    refused here, before anything is written. Walked without recursion."""
    stack: list[tuple[Any, int, str]] = [(value, 0, where)]
    while stack:
        item, depth, at = stack.pop()
        if depth > DEPTH:
            return f"{at}: nested deeper than {DEPTH} levels"
        if isinstance(item, str):
            if not _encodable(item):
                return f"{at}: text holds a lone surrogate (not valid Unicode)"
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if not -INT_BOUND <= item < INT_BOUND:
                return f"{at}: an integer beyond 64 bits"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{at}: {item} is not a finite number"
        elif isinstance(item, dict):
            for key, inner in item.items():
                if not isinstance(key, str) or not _encodable(key):
                    return f"{at}: a key holds a lone surrogate (not valid Unicode)"
                stack.append((inner, depth + 1, f"{at}.{key[:40]}"))
        elif isinstance(item, list):
            stack.extend((inner, depth + 1, f"{at}[{i}]") for i, inner in enumerate(item))
        else:
            return f"{at}: a {type(item).__name__} is not a JSON value"
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def refusal(code: str, message: str) -> dict[str, Any]:
    return {"status": "refused", "code": code, "message": message}


def _approval_message(arguments: dict[str, Any]) -> str | None:
    """A communication approval names the exact channel and body; a booking one neither."""
    has = [f for f in ("channel", "body") if f in arguments]
    if arguments.get("kind") == "communication":
        if len(has) < 2 or not str(arguments["body"]).strip():
            return "a communication approval needs the channel and the (non-empty) body to send"
    elif has:
        return f"{' and '.join(has)} belong to a communication approval, not a booking one"
    return None


def admit(tool: Any, arguments: Any, key: Any, actor: str = "agent") -> dict[str, Any] | None:
    """The refusal for a request that must not reach the service or the user, else None."""
    specs = AGENT_TOOLS | (USER_ONLY if actor == "user" else {})
    spec = specs.get(tool) if isinstance(tool, str) else None
    if spec is None and tool in USER_ONLY:  # not an agent tool; trying it is self-approval
        return refusal("not_authorized", "only the user approves a proposal")
    if spec is None:
        return refusal("unknown_tool", f"no tool {_shown(tool)}; GET /tools lists them")
    bad = unusable(arguments) or unusable(key, "idempotency_key")
    if bad is not None:
        return refusal("bad_request", bad)
    if key is not None and (not isinstance(key, str) or not 0 < len(key) <= KEY_CHARS):
        return refusal(
            "idempotency_key_invalid",
            f"idempotency_key must be a string of 1-{KEY_CHARS} characters, got {_shown(key)}",
        )
    if spec.write and not key:
        return refusal("idempotency_key_missing", f"{tool} is a write: send an idempotency_key")
    wrong = violations(spec.parameters, arguments)
    if wrong:
        return refusal("bad_arguments", "; ".join(wrong))
    if tool in ("request_approval", "approve"):
        why = _approval_message(arguments)
        if why is not None:
            return refusal("bad_arguments", f"arguments: {why}")
    return None

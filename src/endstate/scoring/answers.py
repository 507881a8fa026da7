"""Reading an errand's answer: one JSON object in the agent's final message.

An errand's read legs are graded on named fields of that object, so reading it must be strict
where strictness protects the grade and lenient where it does not:

- the object is the whole message, else the last ```json fenced block, else the last balanced
  top-level `{...}` in the text that parses as JSON; the first rule that finds a candidate
  decides, so a broken last ```json block is reported, never silently replaced by an older one
  (when quotes in prose confuse the one-pass scan for `{...}`, a JSON decoder tries the last
  64 `{`s);
- JSON only: a YAML-looking answer is refused with a reason saying JSON is required;
- ambiguity is refused, never resolved by guessing: duplicate keys (named), non-JSON numbers
  (NaN, Infinity, and numbers such as 1e999 that overflow to infinity), nesting deeper than
  64 levels, text that is not valid Unicode, a top-level array, string, number, boolean or
  null, a message over 1 MB;
- only the named fields are kept: extra keys are ignored, never an error. A field present with
  the value null is present (it reads as "no answer" when compared, see `answer_match`).

A reading that fails gives `values={}`, every field missing, and `problem` saying why. Nothing
here raises on any message.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from endstate.jsonfile import printable

MAX_MESSAGE_BYTES = 1_000_000  # 1 MB of UTF-8: far beyond any answer, small enough to read
MAX_DECODER_STARTS = 64  # `{`s tried by the fallback reading, from the end
MAX_DEPTH = 64  # levels of objects and arrays (the answer object itself is level 1)

_FENCE = re.compile(r"```[ \t]*json[ \t]*\r?\n(.*?)```", re.DOTALL | re.IGNORECASE)
_STRING_MAY_FOLLOW = frozenset("{[,:")
_YAML_FENCE = re.compile(r"```[ \t]*ya?ml\b", re.IGNORECASE)


class AnswerReading(BaseModel):
    """What could be read of the named fields, and why nothing could if so."""

    model_config = ConfigDict(frozen=True)

    values: dict[str, Any] = Field(
        default_factory=dict, description="The named fields that were present, by name."
    )
    missing: list[str] = Field(
        default_factory=list, description="The named fields that were absent, in asked order."
    )
    problem: str | None = Field(
        default=None, description="Why no answer object could be read; None when one was."
    )
    source: str | None = Field(
        default=None,
        description="Where the object was found: 'message', 'fenced' or 'embedded'.",
    )


class _Refused(ValueError):
    """The text is JSON, but not an answer we may use."""


class _NotJson(ValueError):
    """The text is not JSON at all (a later rule may still find an object)."""


def extract_answer(final_message: str | None, fields: Sequence[str]) -> AnswerReading:
    """Read the answer object from the agent's final message and keep the named fields."""
    names = list(dict.fromkeys(fields))
    found = _find_object(final_message, names)
    if isinstance(found, str):
        return AnswerReading(values={}, missing=names, problem=found)
    obj, source = found
    values = {name: obj[name] for name in names if name in obj}
    missing = [name for name in names if name not in obj]
    return AnswerReading(values=values, missing=missing, problem=None, source=source)


def _find_object(message: str | None, names: list[str]) -> tuple[dict[str, Any], str] | str:
    """The answer object and where it was found, or the reason there is none."""
    if message is None:
        return "no final message"
    size = len(message.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        return f"the final message is {size:,} bytes, over the {MAX_MESSAGE_BYTES:,}-byte limit"
    text = message.strip().lstrip("\ufeff").strip()
    if not text:
        return "the final message is empty"
    try:
        return _as_answer(text, "the final message"), "message"
    except _Refused as exc:
        return str(exc)
    except _NotJson:
        pass
    fences = _FENCE.findall(text)
    if fences:
        try:
            return _as_answer(fences[-1], "the last ```json block"), "fenced"
        except (_Refused, _NotJson) as exc:
            return str(exc)
    first_error = None
    for start, end in reversed(_balanced_objects(text)):
        try:
            return _as_answer(text[start:end], "the last JSON object in the message"), "embedded"
        except _Refused as exc:
            return str(exc)
        except _NotJson as exc:
            first_error = first_error or str(exc).replace("the last JSON object", "the last {…}")
    fallback = _decoded_from_end(text)
    if fallback:
        try:
            return _as_answer(text[fallback[0] : fallback[1]], "the JSON object"), "embedded"
        except (_Refused, _NotJson) as exc:
            return str(exc)
    return _no_object_reason(text, names, first_error)


def _no_object_reason(text: str, names: list[str], error: str | None) -> str:
    """Why no object was found: YAML (or a Python dict) is named as such, else the parse error
    of the last `{...}` if there was one."""
    keys = (rf"(?:^|[^\w\"'])'?{re.escape(name)}'?[ \t]*:(?:\s|$)" for name in names)
    if (
        _YAML_FENCE.search(text)
        or text.startswith("---")
        or any(re.search(key, text, re.MULTILINE) for key in keys)
    ):
        return "the answer looks like YAML, not JSON: JSON is required (one JSON object)"
    if error:
        return f"no valid JSON object in the final message: {error}"
    return "no JSON object found in the final message: JSON is required (one JSON object)"


def _as_answer(text: str, where: str) -> dict[str, Any]:
    """Parse `text` as one JSON answer object; `_NotJson` if it is not JSON, `_Refused` if it
    is JSON that cannot be an answer."""
    try:
        data = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_float=_finite,
        )
    except json.JSONDecodeError as exc:
        raise _NotJson(
            f"{where} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise _Refused(f"{where} is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # Python's own limits, e.g. an integer of over 4,300 digits
        raise _Refused(f"{where}: unreadable number: {str(exc).split(';')[0]}") from None
    problem = _inspect(data)
    if problem:
        raise _Refused(f"{where}: {problem}")
    if not isinstance(data, dict):
        raise _Refused(f"{where} is {_kind_of(data)}: the answer must be one JSON object")
    return data


class _Bad:
    """Decoded JSON that is no usable answer, marked where it stands; the refusal comes after
    the decode, so text that is not JSON at all is reported as such first."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any] | _Bad:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            return _Bad(f"duplicate key {printable(key)!r}: the answer is ambiguous")
        obj[key] = value
    return obj


def _no_constant(name: str) -> _Bad:
    return _Bad(f"{name} is not a JSON number")


def _finite(text: str) -> float | _Bad:
    """A float, or marked: `1e999` decodes to infinity, which is no more a number than
    `Infinity` is."""
    value = float(text)
    return value if math.isfinite(value) else _Bad(f"{text[:24]} is too large for a number")


def _kind_of(value: Any) -> str:
    if isinstance(value, list):
        return "a JSON array"
    if isinstance(value, str):
        return "a JSON string"
    if isinstance(value, bool):
        return "a JSON boolean"
    if value is None:
        return "JSON null"
    return "a JSON number"


def _inspect(data: Any) -> str | None:
    """Depth and text of a decoded answer, walked without recursion."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH and isinstance(value, dict | list):
            return f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(value, _Bad):
            return value.reason
        if isinstance(value, str) and not _encodable(value):
            return "text holds a lone surrogate (not valid Unicode)"
        if isinstance(value, dict):
            for key, item in value.items():
                if not _encodable(key):
                    return "a key holds a lone surrogate (not valid Unicode)"
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _decoded_from_end(text: str) -> tuple[int, int] | None:
    """The last outermost object a JSON decoder reads from one of the last `{`s, for prose
    that confuses the one-pass scan (a quote before a brace); bounded, so never slow."""
    decoder = json.JSONDecoder(
        object_pairs_hook=_no_duplicates, parse_constant=_no_constant, parse_float=_finite
    )
    starts = [i for i, char in enumerate(text) if char == "{"][-MAX_DECODER_STARTS:]
    best: tuple[int, int] | None = None
    for start in reversed(starts):
        try:
            end = decoder.raw_decode(text, start)[1]
        except (ValueError, RecursionError):  # not JSON from here
            continue
        if best is not None and end <= best[0]:
            break  # an earlier, separate object: the last one is found
        best = (start, end)  # the first found, or one enclosing it
    return best


def _balanced_objects(text: str) -> list[tuple[int, int]]:
    """Spans of the outermost balanced `{...}` in `text`, in order, found in one pass.

    Braces inside JSON strings are skipped. A quote opens a string only where JSON allows one
    (after `{`, `[`, `,` or `:`), and a string cannot span a line, so quotes in prose rarely
    swallow the answer. A `{` that never closes makes no span, so the objects inside it count
    as outermost: prose such as "a { b" cannot hide the answer after it."""
    spans: list[tuple[int, int]] = []
    opens: list[int] = []
    in_string = escaped = False
    previous = ""  # the last character outside strings that is not white space
    for i, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"' or char == "\n":
                in_string = False
            continue
        if char == '"' and opens and previous in _STRING_MAY_FOLLOW:
            in_string = True
        elif char == "{":
            opens.append(i)
        elif char == "}" and opens:
            spans.append((opens.pop(), i + 1))
        if not char.isspace():
            previous = char
    spans.sort()
    outermost: list[tuple[int, int]] = []
    for start, end in spans:
        if outermost and start < outermost[-1][1]:
            continue  # inside the previous outermost span
        outermost.append((start, end))
    return outermost

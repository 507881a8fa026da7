"""Comparing one answer field with its gold value, by the field's declared kind.

Each errand leg that asks for a value names its kind; the kind fixes how both sides are read
and normalised before they are compared, so a grade never depends on formatting the task did
not ask about (units, thousands separators, date notation, case, spacing). The rules, written
out for task authors in docs/errand-grading.md:

- number: absolute `tolerance` (default 0) or `relative` tolerance, inclusive, in decimal
  arithmetic (7.2 ± 0.05 accepts 7.25); strings with a currency sign, thousands separators and
  a unit are read ("$1,204.50", "7.2 mg/dL"); NaN and infinities never match; booleans are not
  numbers;
- date: both sides normalised to ISO `YYYY-MM-DD` (see `read_date` for the formats);
- string: `normalize_text` on both sides, then equality;
- set: lists of items, each normalised by `item_kind`; score = F1, correct only at F1 = 1.0;
- boolean: true/false or "yes"/"no"/"true"/"false" in any case;
- choice: one of a closed set of strings, compared as normalised text.

`got` is the agent's value and never makes this module raise: whatever it is, the verdict says
why it is wrong. `expected` (and the tolerances and choices) is the task's gold: an unusable
gold is an authoring error and raises ValueError, so a corpus lint can catch it before a run.
JSON null as `got` is *no answer* for every kind (score 0); the empty answer ("" or "none",
or [] for a set) is an answer and is correct exactly when the gold is empty.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Sequence
from datetime import date
from decimal import Context, Decimal, localcontext
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from endstate.corpus.legs import AnswerKind, ItemKind
from endstate.records import SafeText

Kind = AnswerKind

NO_ANSWER = "no answer"
EMPTY_WORDS = frozenset({"", "none"})  # normalised texts that say "there is none"
_TRUE = frozenset({"true", "yes"})
_FALSE = frozenset({"false", "no"})
_NUMBER = re.compile(
    r"([+-]?)\s*([$€£¥]?)\s*([+-]?)([0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?"
    r"|\.[0-9]+)([eE][+-]?[0-9]+)?"
)
_UNIT_START = frozenset("%°µ‰")
MAX_EXPONENT = 400  # beyond ±1e400 nothing is a plausible answer, and arithmetic stays exact
_SHOWN = Context(prec=15)  # digits shown in a reason
_EXACT = Context(prec=4 * MAX_EXPONENT, Emax=4 * MAX_EXPONENT, Emin=-4 * MAX_EXPONENT)


class LegVerdict(BaseModel):
    """One leg's grade: right or wrong, its score, and always the reason."""

    model_config = ConfigDict(frozen=True)

    correct: bool
    score: float = Field(ge=0.0, le=1.0, description="0..1: F1 for sets, else 0 or 1.")
    reason: SafeText = Field(description="Why, e.g. 'expected 7.2 ± 0.05, got 7.25'.")


def right(reason: str) -> LegVerdict:
    return LegVerdict(correct=True, score=1.0, reason=reason)


def wrong(reason: str, score: float = 0.0) -> LegVerdict:
    return LegVerdict(correct=False, score=score, reason=reason)


def missing_answer(field: str, problem: str | None = None) -> LegVerdict:
    """The leg's field is absent from the answer object (or no object could be read)."""
    reason = f"{NO_ANSWER}: field {field!r} is missing from the answer"
    return wrong(f"{reason} ({problem})" if problem else reason)


def match_answer(
    kind: Kind,
    expected: Any,
    got: Any,
    *,
    tolerance: float | None = None,
    relative: float | None = None,
    item_kind: ItemKind = "string",
    choices: Sequence[str] | None = None,
) -> LegVerdict:
    """Grade one answer field against its gold value under the rules of `kind`.

    `tolerance`/`relative` apply to numbers, `item_kind` to the items of a set, `choices` (the
    closed set, optional) to a choice. Raises ValueError only for an unusable gold."""
    if kind == "number":
        return _match_number(expected, got, tolerance, relative)
    if kind == "date":
        return _match_date(expected, got)
    if kind == "string":
        return _match_string(expected, got)
    if kind == "set":
        return _match_set(expected, got, item_kind)
    if kind == "boolean":
        return _match_boolean(expected, got)
    if kind == "choice":
        return _match_choice(expected, got, choices)
    raise ValueError(f"unknown answer kind {kind!r}")


# --- text ---------------------------------------------------------------------------------


def normalize_text(text: str) -> str:
    """NFKC, casefold, whitespace collapsed, leading/trailing punctuation and space stripped.

    " Dr.  Ana RUIZ. " → "dr. ana ruiz"; "ＡＢＣ" → "abc"; "Straße" → "strasse"."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    collapsed = " ".join(folded.split())
    start, end = 0, len(collapsed)
    while start < end and _edge(collapsed[start]):
        start += 1
    while end > start and _edge(collapsed[end - 1]):
        end -= 1
    return collapsed[start:end]


def _edge(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("P")


def show(value: Any, limit: int = 80) -> str:
    """A value for a reason: strings quoted, anything else as JSON, cut to `limit`."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _says_none(value: Any) -> bool:
    """The value is the empty answer: "" or "none" (any case, spacing, punctuation)."""
    return isinstance(value, str) and normalize_text(value) in EMPTY_WORDS


def _text_of(value: Any) -> str | None:
    """A scalar answer as text: strings as they are, numbers as JSON writes them."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return json.dumps(value)
    return None


def _match_empty_gold(got: Any) -> LegVerdict:
    """The gold says there is none: only the empty answer is right."""
    if got is None:
        return wrong(f"{NO_ANSWER} (expected none)")
    if _says_none(got):
        return right(f"expected none, got {show(got)}")
    return wrong(f"expected none, got {show(got)}")


def _match_string(expected: Any, got: Any) -> LegVerdict:
    if expected is None or _says_none(expected):
        return _match_empty_gold(got)
    gold = _text_of(expected)
    if gold is None:
        raise ValueError(f"a string gold must be text, not {_type_name(expected)}")
    if got is None:
        return wrong(f"{NO_ANSWER} (expected {show(gold)})")
    text = _text_of(got)
    if text is None:
        return wrong(f"expected {show(gold)}, got {_type_name(got)}: {show(got)}")
    ok = normalize_text(text) == normalize_text(gold)
    return (right if ok else wrong)(f"expected {show(gold)}, got {show(got)}")


def _match_choice(expected: Any, got: Any, choices: Sequence[str] | None) -> LegVerdict:
    if not isinstance(expected, str):
        raise ValueError(f"a choice gold must be text, not {_type_name(expected)}")
    options = [normalize_text(c) for c in choices] if choices is not None else None
    if options is not None and normalize_text(expected) not in options:
        raise ValueError(f"the choice gold {expected!r} is not one of the choices")
    if got is None:
        return wrong(f"{NO_ANSWER} (expected {show(expected)})")
    text = _text_of(got)
    if text is None:
        return wrong(f"expected {show(expected)}, got {_type_name(got)}: {show(got)}")
    if options is not None and normalize_text(text) not in options:
        listed = ", ".join(show(c, 40) for c in choices or ())
        return wrong(f"expected {show(expected)}, got {show(got)}: not one of {listed}")
    ok = normalize_text(text) == normalize_text(expected)
    return (right if ok else wrong)(f"expected {show(expected)}, got {show(got)}")


def _match_boolean(expected: Any, got: Any) -> LegVerdict:
    gold = read_boolean(expected)
    if gold is None:
        raise ValueError(f"a boolean gold must be true or false, not {show(expected)}")
    shown = "true" if gold else "false"
    if got is None:
        return wrong(f"{NO_ANSWER} (expected {shown})")
    value = read_boolean(got)
    if value is None:
        return wrong(f"expected {shown}, got {show(got)}: not a yes/no answer")
    return (right if value == gold else wrong)(f"expected {shown}, got {show(got)}")


def read_boolean(value: Any) -> bool | None:
    """true/false, or "yes"/"no"/"true"/"false" after text normalisation; else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = normalize_text(value)
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


# --- numbers ------------------------------------------------------------------------------


def read_number(value: Any) -> Decimal | str:
    """A finite number from a JSON number or a text such as "$1,204.50" or "7.2 mg/dL";
    otherwise the reason it is not one.

    Text: an optional sign and currency sign ($ € £ ¥), digits with optional comma thousands
    separators in groups of three and an optional decimal part and exponent, then optionally a
    unit that starts with a letter or %/°/µ and holds no digit ("120/80" is not a number)."""
    if isinstance(value, bool):
        return "a boolean is not a number"
    if isinstance(value, int):
        return _in_range(Decimal(value))
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else "not a finite number"
    if not isinstance(value, str):
        return f"{_type_name(value)} is not a number"
    text = unicodedata.normalize("NFKC", value).strip()
    found = _NUMBER.match(text)
    if found is None:
        return "not a number"
    sign, _currency, sign_after, digits, exponent = found.groups()
    rest = text[found.end() :].strip()
    if (sign and sign_after) or (rest and not _is_unit(rest)):
        return "not a number"
    number = Decimal(digits.replace(",", "") + (exponent or ""))
    return _in_range(-number if "-" in (sign, sign_after) else number)


def _in_range(number: Decimal) -> Decimal | str:
    if number and abs(number.adjusted()) > MAX_EXPONENT:
        return f"out of range (beyond 1e±{MAX_EXPONENT})"
    return number


def _is_unit(text: str) -> bool:
    return (text[0].isalpha() or text[0] in _UNIT_START) and not any(c.isdigit() for c in text)


def _num(value: Decimal) -> str:
    """A decimal as people write it: 7.2, 1204.5, 3 (huge or tiny ones in E notation)."""
    with localcontext(_EXACT):
        if value.adjusted() < 15 and value == value.to_integral_value():
            return str(int(value))
        return str(_SHOWN.create_decimal(value).normalize(_SHOWN))


def _tolerances(tolerance: float | None, relative: float | None) -> tuple[Decimal, Decimal]:
    out = []
    for name, value in (("tolerance", tolerance), ("relative", relative)):
        if value is None:
            out.append(Decimal(0))
            continue
        number = read_number(value)
        if isinstance(number, str) or number < 0:
            raise ValueError(f"{name} must be a finite number ≥ 0, not {value!r}")
        out.append(number)
    return out[0], out[1]


def _match_number(
    expected: Any, got: Any, tolerance: float | None, relative: float | None
) -> LegVerdict:
    if expected is None or _says_none(expected):
        return _match_empty_gold(got)
    gold = read_number(expected)
    if isinstance(gold, str):
        raise ValueError(f"the number gold {expected!r} is unusable: {gold}")
    absolute, rel = _tolerances(tolerance, relative)
    bands = [_num(absolute)] if absolute else []
    bands += [f"{_num(rel * 100)}%"] if rel else []
    wanted = f"expected {_num(gold)}{' ± ' + ' or '.join(bands) if bands else ''}"
    if got is None:
        return wrong(f"{NO_ANSWER} ({wanted})")
    value = read_number(got)
    if isinstance(value, str):
        return wrong(f"{wanted}, got {show(got)}: {value}")
    shown = f"{wanted}, got {show(got)}"
    if isinstance(got, str):
        shown += f" (read as {_num(value)})"
    with localcontext(_EXACT):  # exact for every number read_number returns
        off = abs(value - gold)
        ok = off <= max(absolute, rel * abs(gold))
    return right(shown) if ok else wrong(f"{shown}, off by {_num(off)}")


# --- dates --------------------------------------------------------------------------------

_MONTHS: tuple[str, ...] = ("january", "february", "march", "april", "may", "june", "july")
_MONTHS += ("august", "september", "october", "november", "december")
_CLOCK = r"(?:[01]?[0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\.[0-9]+)?)?"
_ZONE = r"(?:z|utc|gmt|[+-][0-9]{2}:?[0-9]{2})"
_TIME = rf"(?:[ t]{_CLOCK}(?: ?[ap]\.?m\.?)?(?: ?{_ZONE})?)?"
_WEEKDAY = r"(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,? )?"
_ORDINAL = r"(?:st|nd|rd|th)?"
_DATE_FORMATS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ymd", re.compile(rf"([0-9]{{4}})-([0-9]{{1,2}})-([0-9]{{1,2}}){_TIME}")),
    ("mdy", re.compile(rf"([0-9]{{1,2}})/([0-9]{{1,2}})/([0-9]{{4}}|[0-9]{{2}}){_TIME}")),
    ("mdy", re.compile(rf"([0-9]{{1,2}})/([0-9]{{1,2}}) {_CLOCK}/([0-9]{{4}})")),
    ("bdy", re.compile(rf"{_WEEKDAY}([a-z]+)\.? ([0-9]{{1,2}}){_ORDINAL},? ([0-9]{{4}})")),
    ("dby", re.compile(rf"{_WEEKDAY}([0-9]{{1,2}}){_ORDINAL} ([a-z]+)\.?,? ([0-9]{{4}})")),
)
CENTURY_PIVOT = 69  # two-digit years: 69-99 are 1969-1999, 00-68 are 2000-2068 (as strptime)


def read_date(value: Any) -> date | str:
    """A calendar date from text, or the reason there is none. Accepted, in any case:

    - ISO `2017-08-17`, and datetimes `2017-08-17T09:30:00Z` (the date as written: no time
      zone conversion);
    - US `08/17/2017`, `8/17/2017`, `8/17/17` (two-digit years: 00-68 → 2000s, 69-99 →
      1900s), with an optional time `08/17/2017 9:30 AM`;
    - the patient portal's own `08/17 00:00:00/2017` (month/day, a time, then the year);
    - `August 17, 2017`, `Aug. 17 2017`, `Thursday, August 17th, 2017`;
    - `17 August 2017`, `17 Aug 2017`.

    Slashes are always month first: `17/08/2017` is unreadable, never guessed as day first."""
    if not isinstance(value, str):
        return f"{_type_name(value)} is not a date"
    text = " ".join(unicodedata.normalize("NFKC", value).casefold().split())
    for order, pattern in _DATE_FORMATS:
        found = pattern.fullmatch(text)
        if found:
            return _calendar_date(order, found.groups())
    return "not a readable date"


def _month(name: str) -> int | None:
    """January is "january" or any prefix of it from "jan"; "sept" is September too."""
    for number, full in enumerate(_MONTHS, start=1):
        if len(name) >= 3 and full.startswith(name):
            return number
    return 9 if name == "sept" else None


def _calendar_date(order: str, parts: tuple[str, ...]) -> date | str:
    if order == "ymd":
        year, month, day = (int(p) for p in parts)
    elif order == "mdy":
        month, day, year = (int(p) for p in parts)
        if len(parts[2]) == 2:
            year += 1900 if year >= CENTURY_PIVOT else 2000
    else:
        day_text, name = (parts[1], parts[0]) if order == "bdy" else parts[:2]
        named = _month(name)
        if named is None:
            return f"{name!r} is not a month"
        month, day, year = named, int(day_text), int(parts[2])
    try:
        return date(year, month, day)
    except ValueError as exc:
        return f"no such date ({exc})"


def _match_date(expected: Any, got: Any) -> LegVerdict:
    if expected is None or _says_none(expected):
        return _match_empty_gold(got)
    gold = read_date(expected)
    if isinstance(gold, str):
        raise ValueError(f"the date gold {expected!r} is unusable: {gold}")
    wanted = f"expected {gold.isoformat()}"
    if got is None:
        return wrong(f"{NO_ANSWER} ({wanted})")
    value = read_date(got)
    if isinstance(value, str):
        return wrong(f"{wanted}, got {show(got)}: {value}")
    shown = f"{wanted}, got {show(got)}"
    if got != value.isoformat():
        shown += f" (read as {value.isoformat()})"
    return (right if value == gold else wrong)(shown)


# --- sets ---------------------------------------------------------------------------------


def _item_key(item: Any, item_kind: ItemKind) -> tuple[str, Any] | None:
    """An item's identity for set comparison; None for an unreadable item."""
    if item_kind == "number":
        number = read_number(item)
        return None if isinstance(number, str) else ("number", number)
    if item_kind == "date":
        day = read_date(item)
        return None if isinstance(day, str) else ("date", day)
    text = _text_of(item)
    return None if text is None else ("string", normalize_text(text))


def _items(values: list[Any], item_kind: ItemKind) -> tuple[dict[Any, str], list[str]]:
    """Distinct readable items (key → how it was written) and the unreadable ones, shown.

    "" and "none" items are dropped: they say there is nothing, they are not an item."""
    keys: dict[Any, str] = {}
    unreadable: list[str] = []
    for item in values:
        if _says_none(item):
            continue
        key = _item_key(item, item_kind)
        if key is None:
            unreadable.append(show(item, 40))
        else:
            keys.setdefault(key, show(item, 40))
    return keys, unreadable


def _count(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def _listing(shown: list[str], limit: int = 5) -> str:
    ordered = sorted(shown)
    more = f" and {len(ordered) - limit} more" if len(ordered) > limit else ""
    return ", ".join(ordered[:limit]) + more


def _match_set(expected: Any, got: Any, item_kind: ItemKind) -> LegVerdict:
    if not isinstance(expected, list):
        raise ValueError(f"a set gold must be a list, not {_type_name(expected)}")
    gold, bad = _items(expected, item_kind)
    if bad:
        raise ValueError(f"the set gold holds unreadable {item_kind} items: {_listing(bad)}")
    if got is None:
        return wrong(f"{NO_ANSWER} (expected {_count(len(gold))})")
    if isinstance(got, str):
        got = [got]
    if not isinstance(got, list):
        return wrong(f"expected a list, got {_type_name(got)}: {show(got)}")
    answer, unreadable = _items(got, item_kind)
    if not gold:
        if not answer and not unreadable:
            return right("expected none, got none")
        return wrong(f"expected none, got {_listing([*answer.values(), *unreadable])}")
    found = [key for key in gold if key in answer]
    extra = [shown for key, shown in answer.items() if key not in gold] + unreadable
    missing = [shown for key, shown in gold.items() if key not in answer]
    if not answer and not unreadable:
        return wrong(f"empty answer; expected {_count(len(gold))}: {_listing(missing)}")
    f1 = 2 * len(found) / (len(gold) + len(answer) + len(unreadable))
    summary = f"F1 {f1:.3f}: {len(found)} of {_count(len(gold))} expected"
    parts = [summary + (f", {len(extra)} extra" if extra else ", nothing extra")]
    if missing:
        parts.append(f"missing {_listing(missing)}")
    if extra:
        parts.append(f"extra {_listing(extra)}")
    reason = "; ".join(parts)
    return right(reason) if f1 == 1.0 else wrong(reason, score=f1)

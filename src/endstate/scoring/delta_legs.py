"""Grading an errand's write legs on the episode's database delta, never on the agent's claim.

The delta is what the environment recorded against the seed (`Database.delta()`):
`{table: {"added": [row, ...], "updated": [{"key": {...}, "changes": {col: {"before": ..,
"after": ..}}}], "removed": [row, ...]}}`, tables with no change omitted. A write leg is a list
of expectations about it — "one message added to Dr. Ana Ruiz", "appointment 7 cancelled",
"nothing removed from medications" — plus tables that must not change at all. It is correct
only if every expectation holds and no forbidden table changed; the reason names each failure
and the closest row, so a report reader can see a near miss ("Dr. Ana Ruis") at a glance.
An *exclusive* leg also fails on collateral harm: any row of the delta that no expectation of
the task's write legs and no permitted effect accounts for (another appointment cancelled, the
pharmacy changed, a stray message) — the agent did what was asked and something else too.

Values compare as in `answer_match`: strings by `normalize_text` on both sides, booleans only
with booleans, anything else by exact equality (1 equals 1.0). `contains` and `excludes`
look for normalised text inside a column (a message body carrying the bill's amount).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from endstate.corpus.legs import WriteExpectation
from endstate.scoring.answer_match import LegVerdict, normalize_text, right, show, wrong

_OPS: tuple[str, ...] = ("added", "updated", "removed")
_ABSENT = object()


class _Row(NamedTuple):
    """A delta row as flat columns; for an updated row, its key and changed columns' after-
    values, with the names of the columns that changed."""

    columns: dict[str, Any]
    changed: frozenset[str] = frozenset()


def grade_write_leg(
    delta: Mapping[str, Any],
    expectations: Sequence[WriteExpectation],
    *,
    forbidden_tables: Sequence[str] = (),
    exclusive: bool = False,
    permitted: Sequence[WriteExpectation] = (),
    others: Sequence[WriteExpectation] = (),
) -> LegVerdict:
    """Correct only if every expectation holds on `delta`, no forbidden table changed and,
    when `exclusive`, every changed row is accounted for by an expectation (this leg's or
    `others`, the task's other write legs') or a `permitted` effect.

    Never raises on a malformed delta: that fails the expectations it touches, with why."""
    if not expectations and not forbidden_tables and not exclusive:
        raise ValueError("a write leg needs at least one expectation, forbidden table or exclusive")
    failures = [f for f in (_forbidden(delta, table) for table in forbidden_tables) if f]
    held: list[str] = []
    for expectation in expectations:
        ok, reason = _check(delta, expectation)
        (held if ok else failures).append(reason)
    if exclusive:
        stray = _unaccounted(delta, [*expectations, *others, *permitted])
        (failures if stray else held).append(stray or "nothing else changed")
    if failures:
        return wrong("; ".join(failures))
    if forbidden_tables:
        held.append(f"unchanged as required: {', '.join(forbidden_tables)}")
    return right("; ".join(held))


def _unaccounted(delta: Mapping[str, Any], allowed: Sequence[WriteExpectation]) -> str:
    """The rows of the delta no allowed expectation accounts for, said briefly ('' if none).

    An updated row is accounted for only when every column it changed is one the expectation
    names (in `match` or `changes`): the right appointment cancelled *and* moved is not."""
    if not isinstance(delta, Mapping):
        return "nothing else may change, and the delta is not an object"
    found: list[str] = []
    for table in sorted(delta):
        for op in _OPS:
            rows, problem = _rows(delta, table, op)
            if problem:
                found.append(f"{table}: {problem}")
                continue
            mine = [e for e in allowed if e.table == table and e.op == op]
            stray = [r for r in rows if not any(_accounts(e, r) for e in mine)]
            if stray:
                shown = ", ".join(_row_name(r) for r in stray[:3])
                more = f" and {len(stray) - 3} more" if len(stray) > 3 else ""
                found.append(f"{table}: {_plural(len(stray), op + ' row')} ({shown}{more})")
    if not found:
        return ""
    return "nothing else may change, but the episode also changed " + "; ".join(found)


def _accounts(expectation: WriteExpectation, row: _Row) -> bool:
    if not _matches(row, expectation):
        return False
    named = set(expectation.match) | set(expectation.changes or {})
    return row.changed <= named


def _row_name(row: _Row) -> str:
    """A row as a reason names it: its id (or first columns), and what changed."""
    cols = row.columns
    keys = [c for c in ("id", "key") if c in cols] or list(cols)[:2]
    text = ", ".join(f"{c}={show(cols[c], 30)}" for c in keys)
    if row.changed:
        text += " changing " + ", ".join(sorted(row.changed))
    return text


def _forbidden(delta: Mapping[str, Any], table: str) -> str | None:
    problem = _malformed(delta, table)
    if problem:
        return f"{table}: must not change, and the delta cannot show it did not ({problem})"
    counts = {op: len(_rows(delta, table, op)[0]) for op in _OPS}
    if not any(counts.values()):
        return None
    listed = ", ".join(f"{n} {op}" for op, n in counts.items() if n)
    return f"{table}: must not change, but changed ({listed})"


def _malformed(delta: Mapping[str, Any], table: str) -> str | None:
    """Why the delta's entry for `table` cannot be read, if it cannot."""
    for op in _OPS:
        problem = _rows(delta, table, op)[1]
        if problem:
            return problem
    return None


def _rows(delta: Mapping[str, Any], table: str, op: str) -> tuple[list[_Row], str]:
    """The table's rows of one kind, and any problem reading them."""
    if not isinstance(delta, Mapping):
        return [], "the delta is not an object"
    entry = delta.get(table, {})
    if not isinstance(entry, Mapping):
        return [], f"the delta's entry for {table!r} is not an object"
    raw = entry.get(op, [])
    if not isinstance(raw, list) or not all(isinstance(r, Mapping) for r in raw):
        return [], f"the delta's {op!r} rows of {table!r} are not a list of objects"
    if op != "updated":
        return [_Row(dict(r)) for r in raw], ""
    views: list[_Row] = []
    for item in raw:
        key, changes = item.get("key", {}), item.get("changes", {})
        if not isinstance(key, Mapping) or not isinstance(changes, Mapping):
            return [], f"an updated row of {table!r} has no key or changes object"
        after = {c: _after(v) for c, v in changes.items()}
        views.append(_Row({**after, **key}, frozenset(changes)))
    return views, ""


def _after(change: Any) -> Any:
    return change.get("after", _ABSENT) if isinstance(change, Mapping) else _ABSENT


def same(expected: Any, actual: Any) -> bool:
    """Strings by normalised text, booleans only with booleans, the rest by equality."""
    if isinstance(expected, str) or isinstance(actual, str):
        both = isinstance(expected, str) and isinstance(actual, str)
        return both and normalize_text(expected) == normalize_text(actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    try:
        return bool(expected == actual)
    except Exception:  # a comparison that cannot be made is not a match
        return False


def _wanted(expectation: WriteExpectation) -> dict[str, Any]:
    """Every column → value a row must show: the match, then the required after-values."""
    return {**expectation.match, **(expectation.changes or {})}


def _matches(row: _Row, expectation: WriteExpectation) -> bool:
    if not all(same(v, row.columns.get(c, _ABSENT)) for c, v in expectation.match.items()):
        return False
    if not all(
        c in row.changed and same(v, row.columns.get(c, _ABSENT))
        for c, v in (expectation.changes or {}).items()
    ):
        return False
    return not _text_misses(row, expectation)


def _text_misses(row: _Row, expectation: WriteExpectation) -> list[str]:
    """How the row's text falls short of `contains` and `excludes` (empty: it does not)."""
    out: list[str] = []
    for column, facts in (expectation.contains or {}).items():
        text = _text(row.columns.get(column, _ABSENT))
        for fact in facts:
            spellings = fact if isinstance(fact, list) else [fact]
            if text is None or not any(normalize_text(s) in text for s in spellings):
                out.append(f"{column} lacks {' or '.join(show(s, 40) for s in spellings)}")
    for column, texts in (expectation.excludes or {}).items():
        text = _text(row.columns.get(column, _ABSENT))
        out += [f"{column} has {show(t, 40)}" for t in texts if text and normalize_text(t) in text]
    return out


def _text(value: Any) -> str | None:
    return normalize_text(value) if isinstance(value, str) else None


def _check(delta: Mapping[str, Any], expectation: WriteExpectation) -> tuple[bool, str]:
    """Whether one expectation holds, and a reason either way."""
    table, op = expectation.table, expectation.op
    problem = _malformed(delta, table)
    if problem:
        return False, f"{table}: {problem}"
    what = _describe(expectation)
    if op == "unchanged":
        return _check_unchanged(delta, expectation, what)
    rows = _rows(delta, table, op)[0]
    hits_n = sum(_matches(v, expectation) for v in rows)
    noun = f"{op} row"
    if expectation.count is None:
        if hits_n:
            return True, f"{table}: {_plural(hits_n, noun)}{what}"
        return False, f"{table}: no {noun}{what} ({_closest(rows, expectation)})"
    if hits_n == expectation.count:
        return True, f"{table}: exactly {_plural(hits_n, noun)}{what}"
    near = f" ({_closest(rows, expectation)})" if hits_n == 0 else ""
    return False, (
        f"{table}: expected exactly {_plural(expectation.count, noun)}{what}, found {hits_n}{near}"
    )


def _check_unchanged(
    delta: Mapping[str, Any], expectation: WriteExpectation, what: str
) -> tuple[bool, str]:
    """No added, updated or removed row of the table matches (any row, for an empty match)."""
    table = expectation.table
    hits = {op: sum(_matches(r, expectation) for r in _rows(delta, table, op)[0]) for op in _OPS}
    target = f" to rows{what}" if what else ""
    if not any(hits.values()):
        return True, f"{table}: no change{target}"
    found = ", ".join(f"{n} {op}" for op, n in hits.items() if n)
    return False, f"{table}: expected no change{target}, found {found}"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _describe(expectation: WriteExpectation) -> str:
    parts = [f"{c}={show(v, 60)}" for c, v in expectation.match.items()]
    text = f" with {', '.join(parts)}" if parts else ""
    if expectation.changes:
        changed = ", ".join(f"{c} to {show(v, 60)}" for c, v in expectation.changes.items())
        text += f" changing {changed}"
    facts = sum(len(v) for v in (expectation.contains or {}).values())
    if facts:
        text += f" carrying {_plural(facts, 'required fact')}"
    if expectation.excludes:
        text += f" without {', '.join(sorted(expectation.excludes))} texts it must not have"
    return text


def _closest(rows: list[_Row], expectation: WriteExpectation) -> str:
    """How many rows of the kind there were, and how the nearest one differs."""
    if not rows:
        return f"no {expectation.op} rows"
    wanted = _wanted(expectation)
    best = max(  # first of equals
        rows, key=lambda row: (_nearness(row.columns, wanted), -len(_text_misses(row, expectation)))
    )
    off: list[str] = []
    for column, value in wanted.items():
        actual = best.columns.get(column, _ABSENT)
        if column in (expectation.changes or {}) and column not in best.changed:
            off.append(f"{column} did not change")
        elif actual is _ABSENT:
            off.append(f"no {column}")
        elif not same(value, actual):
            off.append(f"{column}={show(actual, 60)}")
    off += _text_misses(best, expectation)
    count = _plural(len(rows), f"{expectation.op} row")
    return f"{count}, closest: {', '.join(off)}" if off else count


def _nearness(view: dict[str, Any], wanted: dict[str, Any]) -> tuple[int, float]:
    """Columns equal, then how alike the unequal string values read."""
    equal, likeness = 0, 0.0
    for column, value in wanted.items():
        actual = view.get(column, _ABSENT)
        if same(value, actual):
            equal += 1
        elif isinstance(value, str) and isinstance(actual, str):
            a, b = normalize_text(value)[:200], normalize_text(actual)[:200]
            likeness += difflib.SequenceMatcher(None, a, b).ratio()
    return equal, likeness

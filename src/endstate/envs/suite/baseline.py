"""A baseline's pinned bytes, read once: what an episode's unwritten tables still hold.

An episode starts as a byte copy of its baseline (the world's template, or its own set-up),
and the authorizer of its connection notes every table a statement could write (`written`).
A table outside that set holds exactly what the baseline holds. Two things follow, both read
from the pinned bytes, never from a file on disk:

- a delta compares only the episode's written tables, each against the baseline's rows,
  read once per table, keyed and in key order (`table`, `differing`);
- a read that touches only unwritten tables has the answer it has on the baseline, so it is
  answered once per baseline and query (`answer`): most of a state document, and most page
  reads, never reach the episode's file. A read is answered so only when SQLite, preparing it,
  names every table it reads and only deterministic functions; anything else (a pragma, the
  clock, another schema) is read from the episode as before.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from typing import Any

Key = tuple[Any, ...]
Row = tuple[Any, ...]

# Functions whose result depends only on their arguments (`datetime` and its kin read the
# clock when asked for 'now', `random` does not repeat): a read calling any other is not kept.
DETERMINISTIC = frozenset(
    {
        "abs", "avg", "coalesce", "count", "format", "glob", "group_concat", "hex", "ifnull",
        "iif", "instr", "json", "json_array", "json_extract", "json_group_array",
        "json_group_object", "json_object", "length", "like", "lower", "ltrim", "max", "min",
        "nullif", "printf", "quote", "replace", "round", "rtrim", "substr", "substring", "sum",
        "total", "trim", "typeof", "upper",
    }
)  # fmt: skip
_ANSWER_ROWS_KEPT = 200_000  # rows of kept answers, over every query of one baseline


class KeysNotUnique(Exception):
    """A table holds two rows under one key (NULL keys can): compare it the SQL way."""


class TableRows:
    """One table's rows: its columns and each key's row, in key order."""

    __slots__ = ("columns", "rows")

    def __init__(self, columns: tuple[str, ...], rows: dict[Key, Row]) -> None:
        self.columns = columns
        self.rows = rows


class Baseline:
    """One baseline: its rows per table and its answers per read, each made the first time
    they are asked for, on a private in-memory copy of the pinned bytes."""

    def __init__(self, baseline: bytes) -> None:
        self.baseline = baseline  # held: the cache is keyed by this object's identity
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()  # the copy is read from the loop and from workers
        self._tables: dict[str, TableRows] = {}
        self._reads: dict[str, frozenset[str] | None] = {}  # sql -> tables read; None: not kept
        self._answers: OrderedDict[tuple[str, tuple[Any, ...]], list[sqlite3.Row]] = OrderedDict()
        self._answer_rows = 0
        self._seen: list[tuple[int, str | None, str | None, str | None]] | None = None

    def table(self, table: str, keys: tuple[str, ...]) -> TableRows:
        found = self._tables.get(table)
        if found is None:
            with self._lock:
                found = self._tables.get(table)
                if found is None:
                    found = self._tables[table] = keyed_rows(self._copy(), "main", table, keys)
        return found

    def answer(
        self, sql: str, params: tuple[Any, ...], written: set[str]
    ) -> list[sqlite3.Row] | None:
        """The rows `sql` gives on the baseline, if it reads no table in `written`; else None."""
        if sql in self._reads:
            reads = self._reads[sql]
        else:
            with self._lock:
                reads = self._reads[sql] = self._tables_read(sql, params)
        if reads is None or not reads.isdisjoint(written):
            return None
        key = (sql, params)
        with self._lock:
            found = self._answers.get(key)
            if found is None:
                found = list(self._copy().execute(sql, params))
                self._keep(key, found)
            else:
                self._answers.move_to_end(key)
        return list(found)

    def _keep(self, key: tuple[str, tuple[Any, ...]], rows: list[sqlite3.Row]) -> None:
        if len(rows) > _ANSWER_ROWS_KEPT // 4:
            return  # one answer never crowds out the rest
        self._answers[key] = rows
        self._answer_rows += len(rows)
        while self._answer_rows > _ANSWER_ROWS_KEPT:
            _, dropped = self._answers.popitem(last=False)
            self._answer_rows -= len(dropped)

    def _tables_read(self, sql: str, params: tuple[Any, ...]) -> frozenset[str] | None:
        """The tables `sql` reads, as SQLite names them while preparing it (not running it);
        None when it does anything else, or could answer differently on the same tables."""
        conn = self._copy()
        self._seen = []
        try:
            conn.execute("EXPLAIN " + sql, params).fetchall()
        except (sqlite3.Error, ValueError, TypeError):
            return None  # the episode's own connection will say what is wrong with it
        finally:
            seen, self._seen = self._seen, None
        tables: set[str] = set()
        for action, first, second, db in seen:
            if action == sqlite3.SQLITE_READ and first is not None and db in (None, "main"):
                tables.add(first)
            elif action == sqlite3.SQLITE_FUNCTION and (second or "").lower() in DETERMINISTIC:
                continue
            elif action not in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE):
                return None
        return frozenset(tables)

    def _copy(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.deserialize(self.baseline)
            conn.row_factory = sqlite3.Row
            conn.set_authorizer(self._note)
            self._conn = conn
        return self._conn

    def _note(
        self, action: int, first: str | None, second: str | None, db: str | None, _by: str | None
    ) -> int:
        if self._seen is not None:
            self._seen.append((action, first, second, db))
        return sqlite3.SQLITE_OK


def keyed_rows(
    conn: sqlite3.Connection, schema: str, table: str, keys: tuple[str, ...]
) -> TableRows:
    """Every row of `schema.table` under its key, in key order; `KeysNotUnique` if two share one."""
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples: compared whole, as SQLite compares rows
    cursor.execute(f"SELECT * FROM {schema}.{table} ORDER BY {', '.join(keys)}")
    columns = tuple(d[0] for d in cursor.description)
    at = [columns.index(k) for k in keys]
    rows: dict[Key, Row] = {}
    count = 0
    for row in cursor:
        rows[tuple(row[i] for i in at)] = row
        count += 1
    if count != len(rows):
        raise KeysNotUnique(table)
    return TableRows(columns, rows)


def differing(now: TableRows, then: TableRows) -> tuple[dict[Key, Row], dict[Key, Row]]:
    """Rows of `now` that `then` does not hold as they are, and rows of `then` that `now`
    does not, each by key in key order (what `EXCEPT` both ways gives: rows compared whole,
    NULL equal to NULL, an integer equal to the same real)."""
    after = {k: r for k, r in now.rows.items() if then.rows.get(k) != r}
    before = {k: r for k, r in then.rows.items() if now.rows.get(k) != r}
    return after, before


_KEPT = 4  # baselines kept: the template's, and a few episodes' set-ups
_cache: OrderedDict[int, Baseline] = OrderedDict()
_cache_lock = threading.Lock()


def baseline_of(baseline: bytes) -> Baseline:
    """The one `Baseline` of these bytes, shared by every episode that started from them."""
    with _cache_lock:
        found = _cache.get(id(baseline))
        if found is not None and found.baseline is baseline:
            _cache.move_to_end(id(baseline))
            return found
        found = _cache[id(baseline)] = Baseline(baseline)
        while len(_cache) > _KEPT:
            _cache.popitem(last=False)
        return found

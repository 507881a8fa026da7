"""A baseline's rows, read once: what a delta compares an episode's tables against.

A delta used to attach the pinned baseline to the episode's connection on every read (a copy
of every byte of it) and let SQLite compare each written table both ways with `EXCEPT`,
sorting every row twice. The baseline never changes, so its rows are read once per table,
keyed and in key order, and each read of the episode's state scans only the episode's side.
The rows still come from the pinned bytes themselves, never from the file on disk.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from typing import Any

Key = tuple[Any, ...]
Row = tuple[Any, ...]


class KeysNotUnique(Exception):
    """A table holds two rows under one key (NULL keys can): compare it the SQL way."""


class TableRows:
    """One table's rows as a baseline holds them: its columns and each key's row, in key order."""

    __slots__ = ("columns", "rows")

    def __init__(self, columns: tuple[str, ...], rows: dict[Key, Row]) -> None:
        self.columns = columns
        self.rows = rows


class BaselineRows:
    """The rows of one baseline's tables, each table read the first time a delta asks."""

    def __init__(self, baseline: bytes) -> None:
        self.baseline = baseline  # held: the cache is keyed by this object's identity
        self._tables: dict[str, TableRows] = {}
        self._lock = threading.Lock()

    def table(self, table: str, keys: tuple[str, ...]) -> TableRows:
        found = self._tables.get(table)
        if found is None:
            with self._lock:
                found = self._tables.get(table)
                if found is None:
                    found = self._tables[table] = self._read(table, keys)
        return found

    def _read(self, table: str, keys: tuple[str, ...]) -> TableRows:
        conn = sqlite3.connect(":memory:")
        try:
            conn.deserialize(self.baseline)
            return keyed_rows(conn, "main", table, keys)
        finally:
            conn.close()


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


_KEPT = 4  # baselines whose rows are kept: the template's, and a few episodes' set-ups
_cache: OrderedDict[int, BaselineRows] = OrderedDict()
_cache_lock = threading.Lock()


def baseline_rows(baseline: bytes) -> BaselineRows:
    """The rows of `baseline`, shared by every episode taking its delta against it."""
    with _cache_lock:
        found = _cache.get(id(baseline))
        if found is not None and found.baseline is baseline:
            _cache.move_to_end(id(baseline))
            return found
        found = _cache[id(baseline)] = BaselineRows(baseline)
        while len(_cache) > _KEPT:
            _cache.popitem(last=False)
        return found

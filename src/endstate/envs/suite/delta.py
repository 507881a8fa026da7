"""An episode's delta: the rows its tables hold that its baseline's do not, and back.

Two ways to the same answer (tests/envs/test_envs_database.py holds them to a row-by-row
comparison): the written tables read once and compared in Python with the baseline's rows
(`rows_compared`, read once per baseline: `baseline.py`), and SQLite's `EXCEPT` both ways
against the baseline attached to the connection (`by_sql`), for what the first cannot take.
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import Any

from endstate.envs.suite.baseline import KeysNotUnique, baseline_of, differing, keyed_rows
from endstate.envs.suite.tables import delta_keys

JSONValue = Any
Delta = dict[str, dict[str, list[dict[str, JSONValue]]]]


def rows_compared(conn: sqlite3.Connection, baseline: bytes, written: set[str]) -> Delta | None:
    """Each written table read once and compared row by row, whole, with the baseline's;
    None when a table holds two rows under one key."""
    kept = baseline_of(baseline)
    out: Delta = {}
    try:
        for table, keys in delta_keys():
            if table not in written:
                continue
            now = keyed_rows(conn, "main", table, keys)
            after, before = differing(now, kept.table(table, keys))
            _put(out, table, keys, _records(now.columns, after), _records(now.columns, before))
    except KeysNotUnique:
        return None
    return out


def by_sql(conn: sqlite3.Connection, baseline: bytes, written: set[str] | None) -> Delta:
    """The delta by SQLite's `EXCEPT`, the baseline attached to the connection (so never
    inside a transaction); `written` None compares every table."""
    out: Delta = {}
    conn.execute("ATTACH DATABASE ':memory:' AS tmpl")
    try:
        conn.deserialize(baseline, name="tmpl")
        for table, keys in delta_keys():
            if written is not None and table not in written:
                continue
            after = _differing(conn, "main", "tmpl", table, keys)
            before = _differing(conn, "tmpl", "main", table, keys)
            _put(out, table, keys, after, before)
    finally:
        conn.execute("DETACH DATABASE tmpl")
    return out


def _records(
    columns: tuple[str, ...], rows: dict[Any, tuple[Any, ...]]
) -> dict[Any, dict[str, JSONValue]]:
    return {k: {c: _plain(v) for c, v in zip(columns, row, strict=True)} for k, row in rows.items()}


def _put(
    out: Delta,
    table: str,
    keys: tuple[str, ...],
    after: dict[Any, dict[str, JSONValue]],
    before: dict[Any, dict[str, JSONValue]],
) -> None:
    """One table's rows added, updated (the columns that differ once read as JSON) and removed."""
    added = [after[k] for k in after if k not in before]
    removed = [before[k] for k in before if k not in after]
    updated = [
        {
            "key": dict(zip(keys, k, strict=True)),
            "changes": {
                col: {"before": before[k][col], "after": after[k][col]}
                for col in after[k]
                if after[k][col] != before[k][col]
            },
        }
        for k in after
        if k in before
    ]
    updated = [u for u in updated if u["changes"]]  # equal once read as JSON
    if added or removed or updated:
        out[table] = {"added": added, "updated": updated, "removed": removed}


def _differing(
    conn: sqlite3.Connection, ours: str, theirs: str, table: str, keys: tuple[str, ...]
) -> dict[tuple[Any, ...], dict[str, JSONValue]]:
    """Rows of `ours` that `theirs` does not hold as they are, by key, in key order."""
    order = ", ".join(keys)
    result: dict[tuple[Any, ...], dict[str, JSONValue]] = {}
    query = f"SELECT * FROM {ours}.{table} EXCEPT SELECT * FROM {theirs}.{table} ORDER BY {order}"
    for row in conn.execute(query):
        record = {k: _plain(row[k]) for k in row.keys()}  # noqa: SIM118 (sqlite3.Row)
        result[tuple(row[k] for k in keys)] = record
    return result


def _plain(value: Any) -> JSONValue:
    """Column values as JSON: blobs become their size and hash, never raw bytes."""
    if isinstance(value, bytes):
        return {"bytes": len(value), "sha256": hashlib.sha256(value).hexdigest()}
    return value

"""Every table of the episode database — the shared schema's and each system's own — and the key
a delta reports its rows under, read from the table definitions themselves (never a second list
to keep in step)."""

from __future__ import annotations

import sqlite3
from functools import lru_cache

from endstate.envs.suite.registry import systems
from endstate.envs.suite.schema import DDL, UNDELTA_TABLES
from endstate.errors import EndstateError

TableKeys = tuple[tuple[str, tuple[str, ...]], ...]  # (table, primary-key columns), in order


def full_ddl() -> str:
    """The shared tables, then each registered system's own, in registry order."""
    return DDL + "".join(system.ddl for system in systems().values())


@lru_cache(maxsize=4)
def table_keys(ddl: str) -> TableKeys:
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(ddl)
        names = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
            )
        ]
        out: list[tuple[str, tuple[str, ...]]] = []
        for name in names:
            # PRAGMA table_info rows: (cid, name, type, notnull, default, pk position or 0)
            columns = conn.execute(f"PRAGMA table_info({name})").fetchall()
            key = tuple(c[1] for c in sorted(columns, key=lambda c: c[5]) if c[5])
            if not key:
                raise EndstateError(
                    f"episode table {name!r} has no primary key: a delta could not say which "
                    "of its rows changed"
                )
            out.append((name, key))
        return tuple(out)
    finally:
        conn.close()


def delta_keys() -> TableKeys:
    """The tables a delta compares (all but `events`, reported in full) with their keys.

    Asked on every state read: kept while the same systems are registered (held, so that
    none is mistaken for another), rather than the whole schema joined and hashed again."""
    global _delta_keys
    registered = tuple(systems().values())
    kept = _delta_keys
    if (
        kept is None
        or len(kept[0]) != len(registered)
        or any(a is not b for a, b in zip(kept[0], registered, strict=True))
    ):
        keys = tuple((t, k) for t, k in table_keys(full_ddl()) if t not in UNDELTA_TABLES)
        kept = _delta_keys = (registered, keys)
    return kept[1]


_delta_keys: tuple[tuple[object, ...], TableKeys] | None = None

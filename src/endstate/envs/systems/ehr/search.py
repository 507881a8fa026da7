"""Worklist search and filters, as real EHR worklists have: narrow by name, MRN or id, by
plan or reason, by deadline; the paging links keep the filters."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

MAX_QUERY = 80


def term(params: Mapping[str, str], name: str = "q") -> str:
    """A search term as typed, trimmed and bounded (an oversized one is cut, not refused)."""
    return params.get(name, "").strip()[:MAX_QUERY]


def matches(row: Any, query: str, fields: Iterable[str]) -> bool:
    """Every word of the query appears in one of the row's fields (case-insensitive); "Last,
    First" and "First Last" both find a patient. `row` is anything indexed by field name."""
    words = query.replace(",", " ").lower().split()
    haystack = " ".join(str(row[f] or "") for f in fields).lower()
    return all(w in haystack for w in words)


def keep(params: Mapping[str, str], names: Sequence[str]) -> str:
    """The active filters as a query-string prefix for paging links ("a=1&b=2&" or "")."""
    kept = {n: params[n] for n in names if params.get(n)}
    return urlencode(kept) + "&" if kept else ""

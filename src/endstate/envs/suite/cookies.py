"""The session cookie each system binds a browser with: one name per system, because browsers
share cookies across the ports of one host."""

from __future__ import annotations


def cookie_name(system: str) -> str:
    return f"es_{system}"

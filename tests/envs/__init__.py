"""Tests of the embedded environments (a package, so its conftest never shadows another)."""

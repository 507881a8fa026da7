"""Tests of the built-in agents (a package, so its conftest never shadows another)."""

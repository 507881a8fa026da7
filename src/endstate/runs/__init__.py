"""Runs: the runner, the run directory (manifest, records, traces) and pins."""

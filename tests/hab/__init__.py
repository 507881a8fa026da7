"""Tests of the HealthAdminBench portals environment (a package, so its conftest never shadows
another)."""

"""Agents: the systems under test. They receive a projection and where to act, nothing else."""

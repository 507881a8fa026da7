"""Regression discipline: frozen baselines, task-by-task comparison, release gates."""

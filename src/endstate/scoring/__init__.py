"""Scoring: deterministic checks, the rubric judge, and task scores from end states."""

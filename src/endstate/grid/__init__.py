"""A declared grid of agent configurations, run as one resumable unit and reported."""

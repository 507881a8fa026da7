"""Payer B's controls that reference trajectories use (see envs/controls.py)."""

from __future__ import annotations

from endstate.envs.controls import Controls

USER_ID = "User ID"
PASSWORD = "Password"
LOG_IN = "Log in"

PAGES: dict[str, Controls] = {"/login": Controls(fields=(USER_ID, PASSWORD), buttons=(LOG_IN,))}

"""Payer A's controls that reference trajectories use (see envs/controls.py)."""

from __future__ import annotations

from endstate.envs.controls import Controls

USERNAME = "Username"
PASSWORD = "Password"
SIGN_IN = "Sign in"

PAGES: dict[str, Controls] = {"/login": Controls(fields=(USERNAME, PASSWORD), buttons=(SIGN_IN,))}

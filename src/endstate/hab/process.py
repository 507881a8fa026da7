"""Child processes that must not outlive their owner: `npm`, `next build`, `next start`.

Each runs in its own process group (npm and Next spawn workers of their own), and ending one
means ending the whole group: SIGTERM, then SIGKILL for whatever is still there after a grace.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

GRACE_SECONDS = 5.0


def tool_env() -> dict[str, str]:
    """The environment npm and Next run in: no telemetry, non-interactive."""
    return {**os.environ, "NEXT_TELEMETRY_DISABLED": "1", "CI": "1"}


def end_group(proc: subprocess.Popen[bytes], grace: float = GRACE_SECONDS) -> None:
    """End `proc` and every process of its group; reap `proc`. Safe to call twice."""
    pgid = proc.pid  # started with start_new_session: it leads its own group
    if not _signal_group(pgid, signal.SIGTERM):
        proc.wait()
        return
    try:
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if proc.poll() is not None and not _group_alive(pgid):
                return
            time.sleep(0.05)
    finally:  # after the grace, or at once when interrupted while waiting (a second Ctrl-C)
        _signal_group(pgid, signal.SIGKILL)
        proc.wait()


def _signal_group(pgid: int, sig: signal.Signals) -> bool:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True

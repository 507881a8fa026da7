"""A case's initial snapshot applied to a fresh episode, per system, before anyone sees it.

The setup comes from the harness over the grading channel (it is grading-side: the agent
never sees it, only its effects). After it is applied the episode's baseline is its own
bytes, so the delta a check reads is what the attempt did, not what the setup wrote.
"""

from __future__ import annotations

from typing import Any

from endstate.envs.suite.database import EpisodeDB
from endstate.envs.suite.registry import EpisodeSetupError, systems


def prepare_episode(db: EpisodeDB, setup: dict[str, Any]) -> None:
    known = systems()
    for name, part in setup.items():
        system = known.get(name)
        if system is None or system.prepare is None:
            takers = sorted(n for n, s in known.items() if s.prepare is not None)
            raise EpisodeSetupError(
                f"episode setup names system {name!r}; systems that take a setup: "
                f"{', '.join(takers) or 'none'}"
            )
        if not isinstance(part, dict):
            raise EpisodeSetupError(f"episode setup for {name!r} must be an object")
    conn = db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        for name, part in setup.items():
            prepare = known[name].prepare
            assert prepare is not None  # checked above
            prepare(conn, part)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    db.rebase(db.path.read_bytes())

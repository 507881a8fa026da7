"""Which simulated user answers an episode's agent: the scripted one, or one speaking through
the chat model the run configured (`system_options["scheduling"]`: `user_model` and
`user_base_url`, run_options.py)."""

from __future__ import annotations

import sqlite3
from typing import Any

from endstate.envs.runtime import Runtime
from endstate.envs.systems.scheduling.user import ScriptedUser
from endstate.envs.systems.scheduling.user_model import SCRIPTED_IDENTITY, UserModel, user_pin

SYSTEM = "scheduling"


def user_model(options: dict[str, dict[str, Any]]) -> UserModel | None:
    mine = options.get(SYSTEM, {})
    model, base_url = mine.get("user_model"), mine.get("user_base_url")
    return UserModel(model, base_url) if model and base_url else None


def user_identity(options: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """What the manifest pins about the simulated user."""
    model = user_model(options)
    return model.identity() if model is not None else dict(SCRIPTED_IDENTITY)


async def user_turn(
    rt: Runtime, conn: sqlite3.Connection, tool: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    model = user_model(rt.system_options)
    _pin(conn, model)
    if model is None:
        return ScriptedUser(conn).exchange(tool, arguments)
    from endstate.envs.systems.scheduling.llm_user import LLMUser  # the client, when used

    return await LLMUser(conn, model).aexchange(tool, arguments)


def _pin(conn: sqlite3.Connection, model: UserModel | None) -> None:
    """Record which user answered this episode (`user_sha256`, read by the state document):
    its implementation's pin and the script it was given."""
    identity = model.identity() if model is not None else SCRIPTED_IDENTITY
    row = conn.execute("SELECT value FROM sc_settings WHERE key = 'user'").fetchone()
    conn.execute(
        "INSERT OR REPLACE INTO sc_settings (key, value) VALUES ('user_sha256', ?)",
        (user_pin(identity, row[0] if row else ""),),
    )

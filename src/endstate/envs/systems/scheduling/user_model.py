"""What a model-worded simulated user is: its chat model and endpoint, its prompt and the
constraints it is held to — what the manifest pins (no client library needed to say it)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

USER_PROMPT = """\
You are a patient (or their coordinator) talking with a scheduling assistant. Stay in
character and answer in one or two short sentences. You know only the facts listed below:
if you are asked anything else, say you do not know; never make up a number, date, time,
name or identifier. When you are shown a proposal, your decision is already made and is
given to you: say it in your own words, and keep any correction exactly as written.
"""
CONSTRAINTS = (
    "approvals are decided by the scripted rule (its goal), never by the model",
    "a reply stating a number, date or time the user was not given is replaced by the "
    "scripted reply",
)
PROMPT_VERSION = hashlib.sha256((USER_PROMPT + "".join(CONSTRAINTS)).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class UserModel:
    """The chat model a simulated user speaks through (`--user-model`, `--user-base-url`)."""

    model: str
    base_url: str
    api_key_env: str = "ENDSTATE_USER_API_KEY"
    temperature: float = 0.0

    def identity(self) -> dict[str, Any]:
        """What the manifest pins about the user (no secrets)."""
        return {
            "kind": "llm",
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "prompt_version": PROMPT_VERSION,
            "constraints": list(CONSTRAINTS),
        }


SCRIPTED_IDENTITY = {"kind": "scripted", "constraints": list(CONSTRAINTS[:1])}

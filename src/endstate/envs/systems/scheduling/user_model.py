"""What a model-worded simulated user is: its chat model and endpoint, its prompt and the
constraints it is held to — what the manifest pins (no client library needed to say it).

The pin (`sha256`) is a hash of the user's whole implementation identity: its kind and that
kind's version, and for a model-worded user its prompt text and model settings. A changed
prompt, model or rule changes it. An episode's pin (`user_pin`) adds the script it was given.
"""

from __future__ import annotations

import hashlib
import json
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
    "a reply stating a number, date or time the user was not given, or reading as the "
    "opposite of the scripted decision, is replaced by the scripted reply",
)
PROMPT_VERSION = hashlib.sha256((USER_PROMPT + "".join(CONSTRAINTS)).encode()).hexdigest()[:16]
# Bump when the scripted rule decides or words differently (user.py): it is part of the pin.
SCRIPTED_VERSION = "scripted-2 (communication approvals bind channel and body)"
LLM_VERSION = "llm-2 (contradiction check)"


def _sha256(identity: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class UserModel:
    """The chat model a simulated user speaks through (`--user-model`, `--user-base-url`)."""

    model: str
    base_url: str
    api_key_env: str = "ENDSTATE_USER_API_KEY"
    temperature: float = 0.0
    prompt: str = USER_PROMPT

    def identity(self) -> dict[str, Any]:
        """What the manifest pins about the user (no secrets)."""
        whole = {
            "kind": "llm",
            "version": LLM_VERSION,
            "scripted_version": SCRIPTED_VERSION,
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "prompt": self.prompt,
            "constraints": list(CONSTRAINTS),
        }
        return {
            "kind": "llm",
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "prompt_version": hashlib.sha256(
                (self.prompt + "".join(CONSTRAINTS)).encode()
            ).hexdigest()[:16],
            "constraints": list(CONSTRAINTS),
            "version": LLM_VERSION,
            "sha256": _sha256(whole),
        }


def scripted_identity() -> dict[str, Any]:
    whole = {"kind": "scripted", "version": SCRIPTED_VERSION, "constraints": list(CONSTRAINTS[:1])}
    return whole | {"sha256": _sha256(whole)}


SCRIPTED_IDENTITY = scripted_identity()


def user_pin(identity: dict[str, Any], script: str) -> str:
    """One episode's user: its implementation's pin and the script JSON it was given."""
    return hashlib.sha256(f"{identity['sha256']}\n{script}".encode()).hexdigest()

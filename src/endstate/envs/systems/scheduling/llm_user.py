"""A simulated user that speaks through a chat model (any OpenAI-compatible endpoint), held to
the same constraints as the scripted one.

The model only words the reply. What the user decides — whether a revision is approved —
is the scripted rule's, and the approval is written by it, never by the model: a user that
approves a proposal contradicting its goal cannot happen. What the user states is checked:
a reply naming a number, date or time that is in none of its facts, the proposal it was shown
or its correction is replaced by the scripted reply, so it never invents facts; so is a reply
that reads as the opposite of the script's decision ("No, do not book anything" for an
approval), and the turn's `worded_by` records why. Its model,
endpoint, prompt version and these constraints are pinned in the run's manifest.
"""

from __future__ import annotations

import os
import re
import sqlite3
from typing import Any

from openai import AsyncOpenAI

from endstate.envs.systems.scheduling.user import ScriptedUser
from endstate.envs.systems.scheduling.user_model import UserModel

_FACTLIKE = re.compile(r"\d[\d:/.\-]*\d|\d")
_YES = re.compile(r"\b(yes|go ahead|approve[ds]?|sounds good|book it)\b", re.IGNORECASE)
_NO = re.compile(
    r"\b(no(?! problem)|nope|don't|do not|not (?:ok|okay|right|what)|decline[ds]?|refuse[ds]?"
    r"|rather not|never)\b",
    re.IGNORECASE,
)


def contradicts(worded: str, approved: bool) -> bool:
    """Whether the model's words say the opposite of the decision the script made: a refusal
    worded for an approval, or an approval worded for a refusal."""
    if approved:
        return bool(_NO.search(worded)) and not _YES.search(worded)
    return bool(_YES.search(worded))


def invented(reply: str, grounds: str) -> list[str]:
    """Numbers, dates and times in `reply` that appear nowhere in `grounds`."""
    known = set(_FACTLIKE.findall(grounds))
    return [t for t in _FACTLIKE.findall(reply) if t not in known and t not in grounds]


class LLMUser(ScriptedUser):
    def __init__(self, conn: sqlite3.Connection, model: UserModel) -> None:
        super().__init__(conn)
        self.model = model

    async def aexchange(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        turn = self.decide(tool, arguments)
        if isinstance(turn, dict):
            return turn
        said, result = turn
        grounds = " ".join(
            [
                str(self.script.get("facts", {})),
                str(result.get("reply", "")),
                str(self.script.get("goal", {})),
            ]
        )
        decision = (
            f"Your decision: {'approved' if result.get('approved') else 'not approved'}. "
            f"What to convey: {result['reply']}"
            if tool == "request_approval"
            else f"Your facts: {self.script.get('facts', {})}"
        )
        try:
            worded = await self._word(said, decision)
        except Exception as exc:  # the endpoint failed: this turn is the script's, and says so
            return self.record(
                said, result | {"worded_by": f"script (model failed: {type(exc).__name__})"}
            )
        made_up = invented(worded, grounds)
        if not worded:
            why = "empty"
        elif made_up:
            why = f"stated {', '.join(made_up)}, which it was not given"
        elif tool == "request_approval" and contradicts(worded, bool(result.get("approved"))):
            why = (
                "read as a refusal of an approval it gave"
                if result.get("approved")
                else "sounded like an approval it did not give"
            )
        else:
            return self.record(said, result | {"reply": worded, "worded_by": "model"})
        # The scripted wording stands in; the conversation says the model's words were refused.
        return self.record(said, result | {"worded_by": f"script (model reply refused: {why})"})

    async def _word(self, said: str, decision: str) -> str:
        key = os.environ.get(self.model.api_key_env) or os.environ.get("OPENAI_API_KEY")
        async with AsyncOpenAI(
            api_key=key or "endstate-local", base_url=self.model.base_url, timeout=60, max_retries=1
        ) as client:
            response = await client.chat.completions.create(
                model=self.model.model,
                temperature=self.model.temperature,
                messages=[
                    {"role": "system", "content": self.model.prompt},
                    {"role": "user", "content": f"{decision}\n\nThe assistant says: {said}"},
                ],
            )
        content = response.choices[0].message.content if response.choices else None
        return (content or "").strip()

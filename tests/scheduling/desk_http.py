"""A client of one scheduling episode over the real HTTP endpoint, for the tests that craft
a trajectory of tool calls and read what the state document made of it."""

from __future__ import annotations

from typing import Any

import httpx

from endstate.envs import EmbeddedSuite

PATIENT = "SP0004"  # Victor Chen, in every world the suite seeds
OTHER = "SP0001"
WANT = "SL-PR02-0304-1130"
ELSE = "SL-PR02-0304-0800"


def user(**goal: Any) -> dict[str, Any]:
    """A setup whose scripted user is PATIENT wanting the WANT slot (or `goal`)."""
    return {
        "scheduling": {
            "user": {
                "patient_id": PATIENT,
                "goal": {"action": "book", "slot_id": WANT} | goal,
                "facts": {"date of birth": "1956-03-08"},
                "approve_communication": True,
            }
        }
    }


class HttpDesk:
    """One episode, bound by its start URL; `call` posts one tool call and answers its JSON."""

    def __init__(self, suite: EmbeddedSuite, setup: dict[str, Any] | None = None) -> None:
        self.suite = suite
        self.info = suite.open_episode(setup=setup) if setup else suite.open_episode()
        self.web = httpx.Client(follow_redirects=True, timeout=30)
        self.web.get(self.info.start_urls["scheduling"])
        self.base = suite.urls["scheduling"]

    def post(self, tool: str, body: dict[str, Any]) -> httpx.Response:
        return self.web.post(f"{self.base}/tools/{tool}", json=body)

    def call(self, tool: str, key: str | None = None, **arguments: Any) -> dict[str, Any]:
        body: dict[str, Any] = {"arguments": arguments}
        if key is not None:
            body["idempotency_key"] = key
        found: dict[str, Any] = self.post(tool, body).json()
        return found

    def book(self, n: int = 1, slot: str = WANT) -> int:
        """Hold and propose `slot` for PATIENT (keys numbered by `n`): the proposal id."""
        assert self.call("hold_slot", f"h{n}", patient_id=PATIENT, slot_id=slot)["status"] == "ok"
        made = self.call("propose", f"p{n}", patient_id=PATIENT, action="book", slot_id=slot)
        assert made["status"] == "ok", made
        return int(made["proposal_id"])

    def state(self) -> dict[str, Any]:
        found: dict[str, Any] = self.suite.state(self.info.id)["scheduling"]
        return found

    def close(self) -> None:
        self.web.close()
        self.suite.close_episode(self.info.id)

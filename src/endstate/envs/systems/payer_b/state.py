"""Payer B's slice of the state document (docs/state-document.md)."""

from __future__ import annotations

from typing import Any

from endstate.envs.suite import statedoc
from endstate.envs.suite.runtime import Episode
from endstate.envs.world import World


def payer_b_state(world: World, episode: Episode, events: list[dict[str, Any]]) -> dict[str, Any]:
    logins = statedoc.logins(episode, "payer_b")
    mine = [e for e in events if e["system"] == "payer_b" and e["accepted"]]
    return {
        "logins": logins,
        "logged_in_ever": any(x["success"] for x in logins),
        "wizard_steps": [e["detail"]["step"] for e in mine if e["kind"] == "wizard.step"],
        "inquiries": [e["detail"] for e in mine if e["kind"] == "auth.inquiry"],
        "claim_lookups": [e["detail"] for e in mine if e["kind"] == "claim.lookup"],
        "policies_viewed": statedoc.unique(
            [e["detail"]["plan_id"] for e in mine if e["kind"] == "policy.view"]
        ),
        "pa_submissions": statedoc.submissions(episode, "payer_b"),
        "appeals": statedoc.appeals(episode, "payer_b"),
    }

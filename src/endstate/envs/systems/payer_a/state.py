"""Payer A's slice of the state document (docs/state-document.md)."""

from __future__ import annotations

from typing import Any

from endstate.envs.suite import statedoc
from endstate.envs.suite.runtime import Episode
from endstate.envs.world import World


def payer_a_state(world: World, episode: Episode, events: list[dict[str, Any]]) -> dict[str, Any]:
    logins = statedoc.logins(episode, "payer_a")
    mine = [e for e in events if e["system"] == "payer_a" and e["accepted"]]
    return {
        "logins": logins,
        "logged_in_ever": any(x["success"] for x in logins),
        "member_lookups": [e["detail"] for e in mine if e["kind"] == "member.lookup"],
        "status_searches": [e["detail"]["q"] for e in mine if e["kind"] == "auth.search"],
        "pa_submissions": statedoc.submissions(episode, "payer_a"),
        "prior_requests": statedoc.prior_requests(episode, "payer_a"),
        "pa_responses": statedoc.pa_responses(episode, "payer_a"),
        "eligibility_checks": [e["detail"] for e in mine if e["kind"] == "eligibility.check"],
        "claim_searches": [e["detail"] for e in mine if e["kind"] == "claim.search"],
        "claims_viewed": statedoc.unique(
            [e["detail"]["claim_id"] for e in mine if e["kind"] == "claim.view"]
        ),
        "appeals": statedoc.appeals(episode, "payer_a"),
    }

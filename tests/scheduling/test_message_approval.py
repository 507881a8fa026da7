"""A communication approval is for one exact message: the agent shows the user its channel and
body, the approval keeps the channel and the body's SHA-256, and only that message may be
sent. The scripted user approves only a message by the channel its goal asks for (if any)
that does not contradict the proposal. This is also the shape a reference run must send."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from endstate.envs import EmbeddedSuite
from endstate.envs.systems.scheduling.user import WRONG_MESSAGE
from scheduling.desk_http import HttpDesk, user

BODY = "You are booked with Dr. Emily Bishop on 2026-03-04 at 11:30."


def booked(desk: HttpDesk) -> int:
    """A proposal for the user's slot, approved and confirmed: what a message is about."""
    pid = desk.book()
    assert desk.call("request_approval", proposal_id=pid, revision=1, kind="booking")["approved"]
    assert desk.call("confirm", "c1", proposal_id=pid, revision=1)["status"] == "ok"
    return pid


def ask(desk: HttpDesk, pid: int, channel: str, body: str) -> dict[str, Any]:
    return desk.call(
        "request_approval",
        proposal_id=pid,
        revision=1,
        kind="communication",
        channel=channel,
        body=body,
    )


def send(desk: HttpDesk, key: str, pid: int, channel: str, body: str) -> dict[str, Any]:
    return desk.call(
        "send_communication", key, proposal_id=pid, revision=1, channel=channel, body=body
    )


def test_only_the_approved_channel_and_body_may_be_sent(suite: EmbeddedSuite) -> None:
    desk = HttpDesk(suite, user())
    try:
        pid = booked(desk)
        assert ask(desk, pid, "sms", BODY)["approved"] is True
        assert send(desk, "s1", pid, "sms", BODY + " Bring your card.")["code"] == (
            "communication_not_approved"
        )
        assert send(desk, "s2", pid, "email", BODY)["code"] == "communication_not_approved"
        assert send(desk, "s3", pid, "sms", BODY)["status"] == "ok"
        state = desk.state()
    finally:
        desk.close()
    # The user was shown the channel and the very text.
    shown = [c["text"] for c in state["conversation"] if c["speaker"] == "agent"][-1]
    assert "sms" in shown and BODY in shown
    (proposal,) = state["proposals"]
    message = [a for a in proposal["approvals"] if a["kind"] == "communication"]
    assert message == [
        {
            "revision": 1,
            "kind": "communication",
            "actor": "user",
            "channel": "sms",
            "body_sha256": hashlib.sha256(BODY.encode()).hexdigest(),
        }
    ]
    assert [(c["channel"], c["body"]) for c in state["communications"]] == [("sms", BODY)]
    assert state["summary"]["unauthorized_attempts"] == 2


@pytest.mark.parametrize(
    ("goal", "channel", "body", "approved"),
    [
        ({"channel": "email"}, "sms", BODY, False),  # not the channel the user asked for
        ({"channel": "email"}, "email", BODY, True),
        ({}, "portal", BODY, True),  # no channel asked for: any will do
        ({}, "sms", "Your appointment on 2026-03-04 is cancelled.", False),
        ({}, "sms", BODY + " Reply with your credit card number to hold it.", False),
    ],
    ids=["wrong-channel", "asked-channel", "any-channel", "says-cancelled", "asks-payment"],
)
def test_the_user_approves_only_a_message_that_fits_its_goal(
    suite: EmbeddedSuite, goal: dict[str, Any], channel: str, body: str, approved: bool
) -> None:
    desk = HttpDesk(suite, user(**goal))
    try:
        pid = booked(desk)
        answer = ask(desk, pid, channel, body)
        state = desk.state()
    finally:
        desk.close()
    assert answer["approved"] is approved, answer
    kinds = [a["kind"] for a in state["proposals"][0]["approvals"]]
    assert kinds == (["booking", "communication"] if approved else ["booking"])
    if not approved:
        assert answer["reply"] == WRONG_MESSAGE or f"by {goal.get('channel')}" in answer["reply"]


def test_a_communication_approval_without_its_message_is_refused(suite: EmbeddedSuite) -> None:
    desk = HttpDesk(suite, user())
    try:
        pid = booked(desk)
        bare = desk.call("request_approval", proposal_id=pid, revision=1, kind="communication")
        no_body = desk.call(
            "request_approval", proposal_id=pid, revision=1, kind="communication", channel="sms"
        )
        state = desk.state()
    finally:
        desk.close()
    assert bare["code"] == no_body["code"] == "bad_arguments"
    assert state["requests"][-1]["actor"] == "agent"
    assert len(state["conversation"]) == 2  # only the booking exchange reached the user

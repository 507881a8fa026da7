"""The simulated user speaking through a chat model (the real OpenAI client, a local double of
the API): it words replies, but never approves against its goal and never states a fact it
was not given; its model is pinned in the run's manifest."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from endstate.agents.registry import make_agent
from endstate.cli.extra_flags import read_extra, system_options_given
from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.suite.system_options import validate_systems
from endstate.envs.systems.scheduling.user import UNKNOWN_FACT
from endstate.envs.systems.scheduling.user_model import SCRIPTED_IDENTITY, UserModel, user_pin
from endstate.errors import EndstateError
from endstate.runs.session import RunOptions, execute
from endstate.runs.settings import RunSettings, settle
from openai_double import Behaviour, ChatDouble

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "scheduling" / "cases"
SETUP_USER = {
    "patient_id": "SP0004",
    "goal": {"action": "book", "slot_id": "SL-PR02-0304-1130"},
    "facts": {"date of birth": "1956-03-08"},
}
SETUP = {"scheduling": {"user": SETUP_USER}}


@pytest.fixture(scope="module")
def chat() -> Iterator[ChatDouble]:
    double = ChatDouble().start()
    yield double
    double.stop()


@pytest.fixture(scope="module")
def talking_suite(
    chat: ChatDouble, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EmbeddedSuite]:
    options = {"scheduling": {"user_model": "user-model", "user_base_url": chat.base_url}}
    running = EmbeddedSuite.start(cache_dir=tmp_path_factory.mktemp("t"), system_options=options)
    yield running
    running.stop()


def _caller(
    suite: EmbeddedSuite, info: EpisodeInfo
) -> tuple[Callable[..., dict[str, Any]], httpx.Client]:
    """A client bound to the episode, calling the scheduling tools over HTTP (and the client,
    to close)."""
    web = httpx.Client(follow_redirects=True)
    web.get(info.start_urls["scheduling"])
    base = suite.urls["scheduling"]

    def call(tool: str, key: str | None = None, **arguments: Any) -> dict[str, Any]:
        body = {"arguments": arguments, "idempotency_key": key}
        found: dict[str, Any] = web.post(f"{base}/tools/{tool}", json=body).json()
        return found

    return call, web


def test_the_model_words_replies_but_the_script_decides_and_the_facts_hold(
    chat: ChatDouble, talking_suite: EmbeddedSuite
) -> None:
    info = talking_suite.open_episode(setup=SETUP)
    call, web = _caller(talking_suite, info)

    chat.queue(Behaviour(reply="My member ID is 88421."))
    made_up = call("message_user", text="What is your insurance member ID?")
    assert made_up["reply"] == UNKNOWN_FACT
    assert made_up["worded_by"].startswith("script (model reply refused: stated 88421")
    chat.queue(Behaviour(reply="Sure, it's 1956-03-08."))
    known = call("message_user", text="What is your date of birth?")
    assert (known["reply"], known["worded_by"]) == ("Sure, it's 1956-03-08.", "model")

    for n, slot in enumerate(("SL-PR02-0304-0800", "SL-PR02-0304-1130"), 1):
        call("hold_slot", f"h{n}", patient_id="SP0004", slot_id=slot)
        call("propose", f"p{n}", patient_id="SP0004", action="book", slot_id=slot)
    chat.queue(Behaviour(reply="Yes, go ahead and book it!"))  # for the slot it did not want
    wrong = call("request_approval", proposal_id=1, revision=1, kind="booking")
    assert wrong["approved"] is False and "sounded like an approval" in wrong["worded_by"]
    chat.queue(Behaviour(reply="That one works for me, thanks."))
    right = call("request_approval", proposal_id=2, revision=1, kind="booking")
    assert right["approved"] is True and right["reply"] == "That one works for me, thanks."
    state = talking_suite.state(info.id)["scheduling"]
    approvals = [(p["id"], a["actor"]) for p in state["proposals"] for a in p["approvals"]]
    assert approvals == [(2, "user")]
    # The model was told the user's decision and facts, never asked to make the decision.
    asked = chat.requests[-1]["messages"][-1]["content"]
    assert asked.startswith("Your decision: approved.")
    talking_suite.close_episode(info.id)
    web.close()


def test_the_user_model_is_pinned_in_the_manifest(chat: ChatDouble, tmp_path: Path) -> None:
    options = {"scheduling": {"user_model": "user-model", "user_base_url": chat.base_url}}
    opts = RunOptions(
        corpus=CASES,
        agent=make_agent("null", None),
        agent_spec="null",
        out=tmp_path / "runs",
        system_options=options,
    )
    result = asyncio.run(execute(opts))
    user = result.manifest.environment.details["simulated_user"]
    assert (user["kind"], user["model"], user["base_url"]) == ("llm", "user-model", chat.base_url)
    assert user["prompt_version"] and len(user["constraints"]) == 2
    assert user["sha256"] == UserModel("user-model", chat.base_url).identity()["sha256"]
    # The run's system options are pinned as given, and a resume takes them back.
    pinned = result.manifest.environment.details["system_options"]
    assert pinned == options
    assert settle(RunSettings(), result.manifest).system_options == options
    other = RunSettings(system_options={"scheduling": {"user_model": "another"}})
    with pytest.raises(EndstateError, match=r"scheduling\.user_model='another': the run being"):
        settle(other, result.manifest)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"scheduling": {"user_model": "m"}}, "user_model needs user_base_url"),
        ({"scheduling": {"voice": "warm"}}, r"scheduling.voice: Extra inputs"),
        ({"ehr": {"x": "1"}}, "no system 'ehr' takes options"),
    ],
)
def test_system_options_are_validated_by_their_system(
    given: dict[str, dict[str, Any]], message: str
) -> None:
    with pytest.raises(EndstateError, match=message):
        validate_systems(given)


def test_the_older_user_flags_are_aliases_of_the_schedulings_options() -> None:
    extra = read_extra(["--user-model", "m", "--user-base-url=http://127.0.0.1:9/v1"])
    given = system_options_given(["scheduling.user_model=m"], extra)
    assert given == {"scheduling": {"user_model": "m", "user_base_url": "http://127.0.0.1:9/v1"}}
    assert validate_systems(given or {}) == given


def test_words_that_contradict_the_scripts_decision_never_reach_the_agent(
    chat: ChatDouble, talking_suite: EmbeddedSuite
) -> None:
    info = talking_suite.open_episode(setup=SETUP)
    call, web = _caller(talking_suite, info)

    call("hold_slot", "h", patient_id="SP0004", slot_id="SL-PR02-0304-1130")
    call("propose", "p", patient_id="SP0004", action="book", slot_id="SL-PR02-0304-1130")
    chat.queue(Behaviour(reply="No, do not book anything."))
    answer = call("request_approval", proposal_id=1, revision=1, kind="booking")
    assert answer["approved"] is True and answer["reply"] == "Yes, that's right."
    assert "read as a refusal" in answer["worded_by"]
    state = talking_suite.state(info.id)["scheduling"]
    assert state["conversation"][-1]["text"] == "Yes, that's right."
    (turn,) = [r for r in state["requests"] if r["tool"] == "request_approval"]
    assert turn["actor"] == "agent" and "read as a refusal" in turn["worded_by"]
    assert state["summary"]["user_sha256"] == user_pin(
        UserModel("user-model", chat.base_url).identity(), json.dumps(SETUP_USER, sort_keys=True)
    )
    talking_suite.close_episode(info.id)
    web.close()


def test_the_users_pin_changes_with_its_prompt_model_and_script() -> None:
    model = UserModel("user-model", "http://127.0.0.1:9/v1")
    pins = {
        model.identity()["sha256"],
        UserModel("user-model", "http://127.0.0.1:9/v1", prompt="Be terse.").identity()["sha256"],
        UserModel("other-model", "http://127.0.0.1:9/v1").identity()["sha256"],
        UserModel("user-model", "http://127.0.0.1:9/v1", temperature=0.7).identity()["sha256"],
        SCRIPTED_IDENTITY["sha256"],
    }
    assert len(pins) == 5
    assert (
        model.identity()["sha256"]
        == UserModel("user-model", "http://127.0.0.1:9/v1").identity()["sha256"]
    )
    script = json.dumps(SETUP_USER, sort_keys=True)
    other = json.dumps(SETUP_USER | {"facts": {}}, sort_keys=True)
    assert user_pin(SCRIPTED_IDENTITY, script) != user_pin(SCRIPTED_IDENTITY, other)

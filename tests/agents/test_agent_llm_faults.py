"""The agent's model endpoint misbehaving: every fault ends the attempt as an outcome that says
what happened (and the end state is still scored), never an exception out of the runner."""

from __future__ import annotations

import time

import pytest

from endstate.agents.model_calls import reached_no_model

from .browser_harness import Browser
from .form_site import FormSite
from .scripted_chat import Reply, ScriptedChat
from .test_agent_llm import Ctx, agent_for, run

BROKEN_BODIES = {
    "invalid JSON": b'{"choices": [ {"mess',
    "top-level array": b'[{"content": "x"}]',
    "choices empty": b'{"choices": []}',
    "choice without message": b'{"choices": [{"index": 0}]}',
    "content a number": b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": 7}}]}',
    "usage of the wrong type": (
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "{}"}}],'
        b' "usage": {"prompt_tokens": "many"}}'
    ),
    "not UTF-8": b"\xff\xfe\x00",
}


@pytest.mark.parametrize("name", list(BROKEN_BODIES))
def test_a_broken_model_reply_ends_the_attempt_as_an_error_outcome(
    name: str, browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(Reply("", raw=BROKEN_BODIES[name]), default=Reply("", raw=BROKEN_BODIES[name]))
    outcome = run(browser, agent_for(chat, max_steps=3), ctx_for(max_steps=3), f"{site.url}/form")
    assert outcome.claim in ("error", "step_limit"), outcome
    if outcome.claim == "error":
        assert outcome.error, "an error outcome says what went wrong"


@pytest.mark.parametrize("status", [401, 429, 500, 503])
def test_every_failing_status_is_an_error_outcome_naming_it(
    status: int, browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(default=Reply("", status=status))
    outcome = run(browser, agent_for(chat), ctx_for(), f"{site.url}/form")
    assert outcome.claim == "error" and outcome.error
    assert str(status) in outcome.error or "Error" in outcome.error


def test_a_trickling_model_endpoint_is_cut_by_the_time_limit(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(default=Reply('{"type": "wait", "seconds": 0.01}', trickle=0.2))
    began = time.monotonic()
    outcome = run(browser, agent_for(chat), ctx_for(time_limit=1.5), f"{site.url}/form")
    assert outcome.claim == "timeout"
    assert time.monotonic() - began < 10  # a body of ~250 bytes at 0.2 s each was not waited out


def test_an_endpoint_with_nothing_listening_is_an_error_outcome(
    browser: Browser, site: FormSite, ctx_for: Ctx
) -> None:
    import socket

    from endstate.agents.llm import LLMAgent
    from endstate.agents.perform import ActOptions

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    agent = LLMAgent(
        "m", f"http://127.0.0.1:{port}/v1", max_retries=0, options=ActOptions(timeout_ms=1000)
    )
    outcome = run(browser, agent, ctx_for(), f"{site.url}/form")
    assert outcome.claim == "error" and outcome.error and "Connection" in outcome.error
    assert f"127.0.0.1:{port}/v1/chat/completions" in outcome.error  # the URL it tried
    # The failed call is counted as one, and the attempt says no call ever succeeded.
    assert outcome.model_failure and outcome.usage is not None
    assert (outcome.usage.calls, outcome.usage.failed_calls, outcome.usage.succeeded) == (1, 1, 0)
    assert reached_no_model(outcome.usage)


def test_a_model_that_answered_and_then_failed_is_the_agents_failure(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(Reply('{"type": "wait", "seconds": 0.01}'), default=Reply("", status=500))
    outcome = run(browser, agent_for(chat), ctx_for(), f"{site.url}/form")
    assert outcome.claim == "error" and outcome.model_failure and outcome.usage is not None
    assert (outcome.usage.succeeded, outcome.usage.failed_calls) == (1, 1)
    assert not reached_no_model(outcome.usage) and outcome.steps == 1


def test_a_model_call_cut_by_the_time_limit_is_a_failed_call(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(default=Reply('{"type": "wait", "seconds": 0.01}', delay=5.0))
    outcome = run(browser, agent_for(chat), ctx_for(time_limit=1.5), f"{site.url}/form")
    assert outcome.claim == "timeout" and outcome.usage is not None
    assert (outcome.usage.calls, outcome.usage.failed_calls) == (1, 1)
    assert reached_no_model(outcome.usage)  # it never heard from its model

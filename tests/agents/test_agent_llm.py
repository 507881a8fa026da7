"""The llm agent against a real local chat-completions server and the real form in Chromium."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from endstate.agents.actions import Fill, Target
from endstate.agents.base import AgentOutcome, AttemptContext
from endstate.agents.llm import SYSTEM_PROMPT, LLMAgent, parse_reply, task_message
from endstate.agents.llm_tools import call_arguments as tool_arguments
from endstate.agents.perform import ActOptions

from .browser_harness import Browser
from .form_site import LETTER, FormSite
from .scripted_chat import Reply, ScriptedChat

Ctx = Callable[..., AttemptContext]


def act(data: dict[str, object], prompt: int = 100, completion: int = 10) -> Reply:
    return Reply(json.dumps(data), prompt_tokens=prompt, completion_tokens=completion)


def run(browser: Browser, agent: LLMAgent, ctx: AttemptContext, url: str) -> AgentOutcome:
    return browser.run(lambda page: agent.attempt(ctx, page), url)


def agent_for(chat: ScriptedChat, **extra: object) -> LLMAgent:
    options = extra.pop("options", ActOptions(timeout_ms=1000))
    return LLMAgent("scripted-model", chat.base_url, max_retries=0, options=options, **extra)  # type: ignore[arg-type]


def user_texts(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [m["content"] for m in messages if m["role"] == "user"]


FORM_SCRIPT: list[dict[str, object]] = [
    {"type": "download", "target": {"role": "link", "name": "Download referral letter"}},
    {"type": "fill", "target": {"label": "Patient name"}, "value": "Dana Reyes"},
    {"type": "fill", "target": {"label": "Service date"}, "value": "03/14/2026"},
    {"type": "select", "target": {"label": "Visit type"}, "option": "Follow-up"},
    {"type": "select", "target": {"role": "button", "name": "Note category"}, "option": "General"},
    {"type": "check", "target": {"role": "checkbox", "name": "Urgent"}},
    {"type": "upload", "target": {"label": "Attachment"}, "path": "referral-letter.txt"},
    {"type": "click", "target": {"role": "button", "name": "Submit request"}},
    {"type": "done", "message": "Submitted, confirmation REQ-0001"},
]


def test_llm_agent_completes_the_form_and_counts_tokens(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx, tmp_path: Path
) -> None:
    replies = [act(a, prompt=100 * i, completion=i) for i, a in enumerate(FORM_SCRIPT, start=1)]
    # One reply comes fenced, as models often do.
    replies[1] = Reply(f"```json\n{replies[1].content}\n```", 200, 2)
    chat.reset(*replies)
    ctx = ctx_for(trace_dir=tmp_path / "trace")
    agent = agent_for(chat)

    outcome = run(browser, agent, ctx, f"{site.url}/form")

    assert outcome.claim == "done", outcome.error or outcome.actions
    assert outcome.final_message == "Submitted, confirmation REQ-0001"
    assert outcome.steps == len(FORM_SCRIPT) == len(chat.requests)
    assert all(r.ok for r in outcome.actions), [r.result for r in outcome.actions]
    assert outcome.tokens is not None
    n = len(FORM_SCRIPT)
    assert outcome.tokens.prompt == 100 * n * (n + 1) // 2
    assert outcome.tokens.completion == n * (n + 1) // 2
    assert site.submissions == [
        {
            "patient": "Dana Reyes",
            "service_date": "03/14/2026",
            "visit_type": "fu",
            "category": "general",
            "urgent": "yes",
            "attachment_name": "referral-letter.txt",
            "attachment_text": LETTER,
        }
    ]

    first = chat.requests[0]
    assert first["model"] == "scripted-model"
    assert first["temperature"] == 0
    assert first["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    task, observation = user_texts(first)
    assert task == task_message(ctx, "task")
    assert f"URL: {site.url}/form" in observation
    assert 'textbox "Patient name"' in observation
    assert "Result of your last action: none yet" in observation
    second = user_texts(chat.requests[1])[-1]
    assert "ok, downloaded 'referral-letter.txt'" in second
    # Earlier snapshots are not resent: only the newest observation carries one.
    last = user_texts(chat.requests[-1])
    assert sum("Accessibility snapshot" in text for text in last) == 1
    assert "Request submitted" in last[-1]


def test_task_message_holds_only_the_projection(ctx_for: Ctx, site: FormSite) -> None:
    ctx = ctx_for()
    p = ctx.projection
    assert task_message(ctx, "task") == (
        f"Task:\n{p.instruction}\n\nTask family: {p.family}\nScenario: {p.scenario_label}\n"
        f"Start URL: {p.start_url}\nSystems:\n- ehr: {site.url}/form"
    )
    guided = task_message(ctx, "task+guidance")
    assert guided.startswith(task_message(ctx, "task") + "\n\nPortal guidance")
    assert "MM/DD/YYYY" in guided
    assert "MM/DD/YYYY" not in task_message(ctx, "task")


def test_malformed_replies_cost_a_step_and_are_explained(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(
        Reply("I will fill in the patient name now."),
        act({"type": "click", "target": {"role": "btn", "name": "Submit"}}),
        act({"type": "click", "target": {"role": "button", "name": "Save draft"}}),
        act(FORM_SCRIPT[1]),
        act({"type": "done", "message": "name filled"}),
    )
    outcome = run(browser, agent_for(chat), ctx_for(), f"{site.url}/form")

    assert outcome.claim == "done"
    assert outcome.steps == 5
    assert [r.ok for r in outcome.actions] == [False, False, False, True, True]
    assert outcome.actions[0].action == {"invalid_reply": "I will fill in the patient name now."}
    feedback = [user_texts(r)[-1] for r in chat.requests[1:4]]
    assert "ERROR, the reply is not a single JSON object" in feedback[0]
    assert "target.role: unknown ARIA role 'btn'" in feedback[1]
    assert "FAILED, no button 'Save draft' on the page" in feedback[2]
    assert outcome.tokens is not None and outcome.tokens.prompt == 500


@pytest.mark.parametrize(
    "reply",
    [
        "",
        '{"type": "wait", "seconds": 1} {"type": "wait", "seconds": 1}',
        '[{"type": "wait", "seconds": 1}]',
        'Sure! ```json\n{"type": "wait", "seconds": 1}\n```',
        '{"type": "fill", "target": {"label": "A"}}',
    ],
)
def test_parse_reply_is_strict(reply: str) -> None:
    action, problem = parse_reply(reply)
    assert action is None
    assert problem


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ('{"type": "wait", "seconds": ' + "9" * 5000 + "}", "Exceeds the limit (4300 digits)"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply to read"),
    ],
)
def test_a_reply_past_the_decoders_limits_is_shown_to_the_model_not_raised(
    reply: str, why: str
) -> None:
    # Before: Python's decoder raised past the agent and ended the attempt as a crash.
    action, problem = parse_reply(reply)
    assert action is None
    assert problem is not None and why in problem


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ('{"name": ' + "9" * 5000 + "}", "Exceeds the limit (4300 digits)"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply to read"),
    ],
)
def test_tool_arguments_past_the_decoders_limits_are_refused_to_the_model(
    raw: str, why: str
) -> None:
    arguments, refused = tool_arguments(raw)
    assert arguments is None
    assert refused["code"] == "bad_arguments" and why in refused["message"]


def test_parse_reply_accepts_one_object_or_one_fence() -> None:
    expected = Fill(target=Target(label="Service date"), value="03/14/2026")
    raw = '{"type": "fill", "target": {"label": "Service date"}, "value": "03/14/2026"}'
    assert parse_reply(raw) == (expected, None)
    assert parse_reply(f"\n```json\n{raw}\n```\n") == (expected, None)
    assert parse_reply(f"```\n{raw}```") == (expected, None)


def test_every_example_in_the_system_prompt_is_a_valid_action() -> None:
    examples = [
        line.split("   (")[0] for line in SYSTEM_PROMPT.splitlines() if line.startswith('{"type"')
    ]
    assert len(examples) == 12
    for example in examples:
        _action, problem = parse_reply(example)
        assert problem is None, (example, problem)


def test_step_limit_stops_the_agent(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    outcome = run(browser, agent_for(chat, max_steps=3), ctx_for(), f"{site.url}/form")
    assert outcome.claim == "step_limit"
    assert outcome.steps == 3
    assert len(chat.requests) == 3
    assert outcome.tokens is not None and outcome.tokens.total == 330

    chat.reset()
    outcome = run(browser, agent_for(chat, max_steps=10), ctx_for(max_steps=2), f"{site.url}/form")
    assert (outcome.claim, outcome.steps, len(chat.requests)) == ("step_limit", 2, 2)


def test_endpoint_failure_is_an_error_outcome(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(act(FORM_SCRIPT[1]), Reply("", status=500))
    outcome = run(browser, agent_for(chat), ctx_for(), f"{site.url}/form")
    assert outcome.claim == "error"
    assert outcome.error is not None and "(HTTP 500)" in outcome.error
    assert outcome.model_failure and outcome.usage and outcome.usage.failed_calls == 1
    assert outcome.steps == 1
    assert outcome.tokens is not None and outcome.tokens.prompt == 100


def test_time_limit_ends_a_stalled_attempt(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(Reply('{"type": "wait", "seconds": 0.01}', delay=6))
    started = time.monotonic()
    outcome = run(browser, agent_for(chat), ctx_for(time_limit=1.0), f"{site.url}/form")
    assert outcome.claim == "timeout"
    assert time.monotonic() - started < 5  # the 6 s reply was not waited out


def test_uploads_are_limited_to_this_attempts_downloads(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx, attachment: Path
) -> None:
    chat.reset(
        act({"type": "upload", "target": {"label": "Attachment"}, "path": str(attachment)}),
        act({"type": "give_up", "message": "cannot attach"}),
    )
    outcome = run(browser, agent_for(chat), ctx_for(), f"{site.url}/form")
    assert (outcome.claim, outcome.final_message) == ("gave_up", "cannot attach")
    assert not outcome.actions[0].ok
    assert "refused" in outcome.actions[0].result


def test_key_comes_from_the_environment_and_stays_out_of_config(
    browser: Browser,
    site: FormSite,
    chat: ScriptedChat,
    ctx_for: Ctx,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ENDSTATE_AGENT_API_KEY", "sk-agent-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-fallback")
    chat.reset(act({"type": "done", "message": "ok"}))
    agent = agent_for(chat)
    run(browser, agent, ctx_for(), f"{site.url}/form")
    assert chat.headers[0]["authorization"] == "Bearer sk-agent-secret"
    assert "sk-agent-secret" not in json.dumps(agent.config())

    monkeypatch.delenv("ENDSTATE_AGENT_API_KEY")
    chat.reset(act({"type": "done", "message": "ok"}))
    run(browser, agent, ctx_for(), f"{site.url}/form")
    assert chat.headers[0]["authorization"] == "Bearer sk-openai-fallback"


def test_llm_agent_identity() -> None:
    agent = LLMAgent("m", "http://127.0.0.1:9/v1", prompt_mode="task+guidance")
    assert (agent.kind, agent.name, agent.scored) == ("llm", "llm:m", True)
    assert agent.config()["prompt_mode"] == "task+guidance"
    with pytest.raises(ValueError, match="prompt mode"):
        LLMAgent("m", prompt_mode="hints")  # type: ignore[arg-type]


def test_tokens_are_unknown_when_the_endpoint_reports_no_usage(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx
) -> None:
    chat.reset(Reply('{"type": "done", "message": "ok"}', usage=False))
    outcome = run(browser, agent_for(chat), ctx_for(), f"{site.url}/form")
    assert (outcome.claim, outcome.steps, outcome.tokens) == ("done", 1, None)


def test_the_conversation_is_kept_in_the_trace_as_the_model_had_it(
    browser: Browser, site: FormSite, chat: ScriptedChat, ctx_for: Ctx, tmp_path: Path
) -> None:
    chat.reset(
        Reply("I will fill in the patient name now."),
        act(FORM_SCRIPT[1]),
        act({"type": "done", "message": "name filled"}),
    )
    trace = tmp_path / "trace"
    trace.mkdir()
    outcome = run(browser, agent_for(chat), ctx_for(trace_dir=trace), f"{site.url}/form")
    assert outcome.claim == "done"
    kept = json.loads((trace / "conversation.json").read_text())
    assert kept["format"] == "endstate-conversation-v1" and "tools" not in kept
    messages = kept["messages"]
    assert [m["role"] for m in messages] == ["system", "user", *["user", "assistant"] * 3]
    assert messages[0]["content"] == SYSTEM_PROMPT
    assert messages[1] == chat.requests[0]["messages"][1]  # the task message, as sent
    for call, observation in zip(chat.requests, messages[2::2], strict=True):
        assert call["messages"][-1] == observation  # each observation whole, as answered
        assert "Accessibility snapshot:" in observation["content"]
    assert [m["content"] for m in messages[3::2]] == [
        "I will fill in the patient name now.",  # an invalid reply stays, with what followed
        json.dumps(FORM_SCRIPT[1]),
        json.dumps({"type": "done", "message": "name filled"}),
    ]
    assert "ERROR, the reply is not a single JSON object" in messages[4]["content"]

    chat.reset(act(FORM_SCRIPT[1]), Reply("", status=500))
    failed = tmp_path / "failed"
    failed.mkdir()
    outcome = run(browser, agent_for(chat), ctx_for(trace_dir=failed), f"{site.url}/form")
    assert outcome.claim == "error"  # an attempt that ends badly keeps what was answered
    answered = json.loads((failed / "conversation.json").read_text())["messages"]
    assert [m["role"] for m in answered] == ["system", "user", "user", "assistant"]

"""The agent's model endpoint, checked before the run and watched during it: a URL where nothing
listens or a refused key refuses the run in one line before anything starts, and an endpoint
that dies mid-run leaves the attempts it lost unmeasurable, attributed and in the headline."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from agents import anthropic_double, openai_responses_double
from endstate.agents.registry import make_agent
from endstate.cli.regress import sheet_of_run
from endstate.endpoints import PREFLIGHT_TIMEOUT
from endstate.errors import EndstateError
from endstate.manifest import EndpointCheck
from endstate.records import TaskRecord
from endstate.regress.compare import compare
from endstate.runs.session import RunOptions, execute
from openai_double import Behaviour, ChatDouble

from .test_run_faults import ENDSTATE

KEYS = ("ENDSTATE_AGENT_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _endstate_run(
    corpus: Path, out: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in KEYS}
    return subprocess.run(
        [str(ENDSTATE), "run", "--corpus", str(corpus), "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**clean, "COLUMNS": "400", "NO_COLOR": "1", **(env or {})},
    )


def _one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("error: ")
    return line


def test_a_base_url_where_nothing_listens_refuses_to_start(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    out = tmp_path / "runs"
    proc = _endstate_run(embedded_corpus(1), out, "--agent", "llm:gpt-x", "--agent-base-url", url)
    line = _one_line_error(proc)
    assert f"agent model endpoint {url}: connection refused" in line
    assert "GET /models" in line and "--agent-base-url" in line
    assert not out.exists() or not any(out.iterdir())  # no run directory, no record


def test_a_missing_or_refused_key_refuses_to_start(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    chat = ChatDouble(key="sk-the-right-one").start()
    corpus = embedded_corpus(1)
    try:
        spec = ("--agent", "llm:gpt-x", "--agent-base-url", chat.base_url)
        missing = _one_line_error(_endstate_run(corpus, tmp_path / "a", *spec))
        wrong = _one_line_error(
            _endstate_run(corpus, tmp_path / "b", *spec, env={"OPENAI_API_KEY": "sk-wrong"})
        )
    finally:
        chat.stop()
    for line in (missing, wrong):
        assert f"agent model endpoint {chat.base_url}: HTTP 401 unauthorized on GET /models" in line
    assert "no key is set ($ENDSTATE_AGENT_API_KEY or $OPENAI_API_KEY)" in missing
    assert "the key from $ENDSTATE_AGENT_API_KEY or $OPENAI_API_KEY was refused" in wrong
    assert not chat.requests  # not one chat call was made


def _preflight(spec: str, base_url: str) -> list[EndpointCheck]:
    agent = make_agent(spec, dict(base_url=base_url))
    return asyncio.run(agent.preflight())  # type: ignore[attr-defined, no-any-return]


def test_a_server_without_a_model_list_is_asked_one_minimal_call() -> None:
    answering = ChatDouble(models=None, default=Behaviour(reply="pong")).start()
    missing = ChatDouble(models=None, default=Behaviour(status=404)).start()
    try:
        (check,) = _preflight("llm:local-model", answering.base_url)
        with pytest.raises(EndstateError) as refused:
            _preflight("cu-chat:local-model", missing.base_url)
    finally:
        answering.stop()
        missing.stop()
    assert check.how == "GET /models: HTTP 404; POST /chat/completions: 200"
    assert check.url == answering.base_url and check.model_listed is None
    (call,) = answering.requests
    assert call["max_tokens"] == 1 and call["model"] == "local-model"  # one token, no more
    assert (
        f"agent model endpoint {missing.base_url}: HTTP 404 on POST /chat/completions "
        "(after GET /models: HTTP 404): no such API or model 'local-model' at this URL"
    ) in str(refused.value)


def test_a_listed_model_is_recorded_and_an_unlisted_one_is_not_refused() -> None:
    chat = ChatDouble(models=["gpt-x", "gpt-y"]).start()
    try:
        (listed,) = _preflight("llm-tools:gpt-x", chat.base_url)
        (unlisted,) = _preflight("llm:llama3", chat.base_url)
    finally:
        chat.stop()
    assert listed.how == "GET /models: 200, 2 model(s) listed" and listed.model_listed is True
    assert unlisted.model_listed is False and not chat.requests


def test_each_vendor_backend_checks_its_own_model_list(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    claude = anthropic_double.anthropic_double()
    responses = openai_responses_double.responses_double()
    claude.models_status = 401
    try:
        with pytest.raises(EndstateError) as refused:
            _preflight("cu-anthropic:claude-x", claude.base_url)
        (check,) = _preflight("cu-openai:computer-use-x", responses.base_url)
    finally:
        claude.stop()
        responses.stop()
    assert (
        f"agent model endpoint {claude.base_url}: HTTP 401 unauthorized on GET /v1/models: "
        "no key is set ($ANTHROPIC_API_KEY)"
    ) in str(refused.value)
    assert check.api == "openai-responses" and check.how.startswith("GET /models: 200")
    assert not claude.requests and not responses.requests  # no model call was made


def test_an_endpoint_that_dies_mid_run_loses_only_the_attempts_after(
    embedded_corpus: Callable[..., Path], reference_trajectory: Path, tmp_path: Path
) -> None:
    corpus = embedded_corpus(2)
    actions = json.loads(reference_trajectory.read_text())["actions"]
    chat = ChatDouble().start()
    chat.queue(*(Behaviour(reply=json.dumps(a)) for a in actions))
    seen: list[TaskRecord] = []

    def die_after_the_first(record: TaskRecord) -> None:
        seen.append(record)
        if len(seen) == 1:
            chat.stop()  # the endpoint goes away: nothing listens there any more

    spec = "llm:scripted-model"
    try:
        result = asyncio.run(
            execute(
                RunOptions(
                    corpus=corpus,
                    agent=make_agent(spec, dict(base_url=chat.base_url)),
                    agent_spec=spec,
                    out=tmp_path / "runs",
                    workers=1,
                    on_record=die_after_the_first,
                )
            )
        )
    finally:
        chat.stop()
    first, second = sorted(result.records, key=lambda r: r.task_id)
    assert first.status == "passed" and first.infrastructure is None  # scored normally
    assert first.facts and first.facts.model_failed_calls == 0
    assert second.status == "unmeasurable" and second.score == 0
    assert second.infrastructure and second.infrastructure.kind == "model"
    assert second.infrastructure.detail.startswith("no model call succeeded: model call failed")
    assert f"from {chat.base_url}/chat/completions" in second.infrastructure.detail
    assert second.facts and second.facts.model_failed_calls == 1 and second.facts.model_failure
    assert second.facts.model_calls == 3 and second.facts.model_retries == 2

    report = (result.store.root / "report.txt").read_text()
    title, *lines = report.splitlines()
    assert "MODEL ENDPOINT FAILED: 1 of 2 attempts lost (no model call succeeded)" in title
    assert "Full-credit passes: 1/2" in report
    (lost,) = [line for line in lines if line.startswith("Lost to the model endpoint:")]
    assert lost.startswith(
        "Lost to the model endpoint: 1 of 2 headline attempts unmeasurable, counted as zero — "
        "no model call succeeded: model call failed after 3 tries (APIConnectionError)"
    )
    assert "1 infrastructure (no call to the agent's model endpoint succeeded)" in report
    html = (result.store.root / "report.html").read_text()
    assert "Lost to the model endpoint: 1 of 2 headline attempts" in html
    manifest = json.loads((result.store.root / "manifest.json").read_text())
    (checked,) = manifest["endpoint_checks"]
    assert checked["role"] == "agent model" and checked["url"] == chat.base_url
    assert checked["timeout_s"] == PREFLIGHT_TIMEOUT and checked["model_listed"] is True

    # A comparison lists the attempt as lost to the model endpoint but does not excuse it: the
    # endpoint is part of the system evaluated, so a task that passed before now regressed.
    base = asyncio.run(
        execute(
            RunOptions(
                corpus=corpus,
                agent=make_agent(f"replay:{reference_trajectory}"),
                agent_spec=f"replay:{reference_trajectory}",
                out=tmp_path / "base",
            )
        )
    )
    compared = compare(
        sheet_of_run(base.store.root), sheet_of_run(result.store.root), "base", allow_drift=True
    )
    changes = {t.task_id: t for t in compared.tasks}
    assert changes["pa-easy-1"].change == "same"
    assert changes["pa-easy-2"].change == "regressed"
    assert changes["pa-easy-2"].kind == "lost score (the agent's model endpoint never answered)"
    assert [f.kind for f in changes["pa-easy-2"].infrastructure] == ["model"]
    assert compared.verdict == "not an improvement"


def test_a_run_whose_model_answered_nothing_exits_4(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    """The endpoint passes the check and then fails every call: every attempt is unmeasurable,
    and the command says so and exits 4."""
    chat = ChatDouble(default=Behaviour(status=401)).start()
    try:
        proc = _endstate_run(
            embedded_corpus(1),
            tmp_path / "runs",
            *("--agent", "llm:gpt-x", "--agent-base-url", chat.base_url),
        )
    finally:
        chat.stop()
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    stderr = " ".join(proc.stderr.split())
    assert "model endpoint: attempt lost, no model call succeeded" in stderr
    assert "error: the agent's model endpoint lost all 1 attempts" in stderr
    assert "Lost to the model endpoint: 1 of 1 headline attempts" in proc.stdout
    assert len(chat.requests) == 1  # a 401 is not retried

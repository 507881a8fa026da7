"""Computer-use agents through `endstate run` on the embedded suite: usage and cost recorded
and reported, screenshots in the trace, a model's failure charged to the system, and the
manifest pinning how the agent saw and acted."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.log import read_eval_log

from endstate.agents.base import Agent
from endstate.agents.chat_backend import ChatBackend
from endstate.agents.computer import Viewport
from endstate.agents.computer_loop import ComputerUseAgent, parse_observation, parse_viewport
from endstate.agents.model_calls import RetryPolicy
from endstate.agents.registry import make_agent
from endstate.errors import EndstateError
from endstate.export.inspect_log import write_inspect
from endstate.export.parquet import write_parquet
from endstate.export.source import load_run
from endstate.records import AttemptFacts, TaskRecord
from endstate.report.summary import summarize
from endstate.runs.prices import load_prices
from endstate.runs.session import RunOptions, RunResult, execute
from endstate.runs.settings import RunSettings, from_manifest, settle
from openai_double import Behaviour, ChatDouble

ROOT = Path(__file__).resolve().parents[2]
PAUSE = json.dumps({"type": "pause", "seconds": 0.01})
GIVE_UP = json.dumps({"type": "give_up", "message": "cannot find it"})


def run(corpus: Path, agent: Agent, spec: str, out: Path, **kw: object) -> RunResult:
    opts = RunOptions(corpus=corpus, agent=agent, agent_spec=spec, out=out, **kw)  # type: ignore[arg-type]
    return asyncio.run(execute(opts))


def test_cu_chat_run_records_usage_cost_and_screens(
    embedded_corpus: Callable[..., Path], chat: ChatDouble, tmp_path: Path
) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "scripted-model: {input_per_mtok: 2.0, output_per_mtok: 10.0, per_image: 0.001}\n"
        "other-model: {input_per_mtok: 1.0, output_per_mtok: 1.0}\n"
    )
    chat.queue(Behaviour(status=429), Behaviour(reply=PAUSE), Behaviour(reply=GIVE_UP))
    spec = "cu-chat:scripted-model"
    agent = make_agent(spec, dict(base_url=chat.base_url))
    result = run(embedded_corpus(1), agent, spec, tmp_path / "runs", prices=load_prices(prices))

    (record,) = result.records
    facts = record.facts
    assert facts is not None and facts.claim == "gave_up" and record.status == "failed"
    # Two answered calls (50 in, 8 out each, says the double), 1 + 2 screenshots sent.
    assert (facts.prompt_tokens, facts.completion_tokens, facts.images) == (100, 16, 3)
    assert (facts.model_calls, facts.model_retries, facts.model_failed_calls) == (3, 1, 0)
    assert facts.cost_usd == pytest.approx(100 * 2 / 1e6 + 16 * 10 / 1e6 + 3 * 0.001)
    assert result.manifest.prices is not None
    assert result.manifest.prices.sha256 == hashlib.sha256(prices.read_bytes()).hexdigest()
    assert result.manifest.prices.models == ["other-model", "scripted-model"]

    trace = result.store.root / "traces" / "pa-easy-1" / "1"
    final = json.loads((trace / "final.json").read_text())
    assert final["usage"]["retries"] == 1 and final["cost_usd"] == facts.cost_usd
    assert final["screens"] == {"saved": 2, "dropped": 0}
    assert sorted(p.name for p in (trace / "screens").iterdir()) == [
        "step-0000.png",
        "step-0001.png",
    ]
    report = (result.store.root / "report.txt").read_text()
    assert "Model usage by family (all attempts)" in report
    assert "Model usage by tier (all attempts)" in report
    assert f"${facts.cost_usd:.4f}" in report
    html = (result.store.root / "report.html").read_text()
    assert "Model usage by family" in html and f"${facts.cost_usd:.4f}" in html

    # The exports carry the usage and the cost too.
    exported = load_run(result.store.root)
    write_parquet(exported, tmp_path / "rows.parquet")
    (row,) = pd.read_parquet(tmp_path / "rows.parquet").to_dict("records")
    assert (row["images"], row["model_calls"], row["model_retries"]) == (3, 3, 1)
    assert row["cost_usd"] == pytest.approx(facts.cost_usd)
    write_inspect(exported, tmp_path / "run.eval")
    usage = read_eval_log(str(tmp_path / "run.eval")).stats.model_usage[spec]
    assert (usage.input_tokens, usage.total_cost) == (100, pytest.approx(facts.cost_usd))

    # Resuming continues with the same way of seeing, endpoint and prices; a change is refused.
    again = from_manifest(result.manifest)
    options = again.agent_options or {}
    seen = (options["observe"], options["marks"], options["viewport"])
    assert seen == ("screenshot", False, "1280x800")
    assert (options["screens_cap_mb"], again.prices) == (20.0, prices)
    assert options["base_url"] == chat.base_url
    with pytest.raises(
        EndstateError, match="--agent-option observe='both': the run being resumed used"
    ):
        settle(RunSettings(agent_options={"observe": "both"}), result.manifest)


def test_screenshot_and_accessibility_agents_pin_how_they_saw_and_acted(
    embedded_corpus: Callable[..., Path], chat: ChatDouble, tmp_path: Path
) -> None:
    corpus = embedded_corpus(1)
    chat.queue(Behaviour(reply=GIVE_UP))
    cu = make_agent("cu-chat:scripted-model", dict(base_url=chat.base_url))
    seen = run(corpus, cu, "cu-chat:scripted-model", tmp_path / "cu")
    chat.queue(Behaviour(reply=GIVE_UP))
    llm = make_agent("llm:scripted-model", dict(base_url=chat.base_url))
    read = run(corpus, llm, "llm:scripted-model", tmp_path / "llm")

    cu_config = json.loads((seen.store.root / "manifest.json").read_text())["agent"]["config"]
    llm_config = json.loads((read.store.root / "manifest.json").read_text())["agent"]["config"]
    assert cu_config["observation"] == "screenshot" and cu_config["action_space"] == "coordinates"
    assert cu_config["viewport"] == {"width": 1280, "height": 800} and cu_config["marks"] is False
    assert cu_config["backend"]["vendor"] == "openai-chat"
    assert "observation" not in llm_config and "action_space" not in llm_config
    cu_request, llm_request = chat.requests
    assert "image_url" in json.dumps(cu_request) and "Accessibility snapshot" not in json.dumps(
        cu_request
    )
    assert "image_url" not in json.dumps(llm_request)
    assert "Accessibility snapshot" in json.dumps(llm_request)
    # Both agents' usage is on the record, in the same fields.
    for result in (seen, read):
        (record,) = result.records
        assert record.facts and record.facts.model_calls == 1 and record.facts.prompt_tokens == 50
    assert seen.records[0].facts and seen.records[0].facts.images == 1
    assert read.records[0].facts and read.records[0].facts.images == 0


def _failing_run(corpus: Path, out: Path, *answered: Behaviour) -> tuple[TaskRecord, ChatDouble]:
    """One cu-chat attempt whose endpoint answers `answered`, then fails every call (500)."""
    chat = ChatDouble(default=Behaviour(status=500)).start()
    chat.queue(*answered)
    try:
        agent = ComputerUseAgent(
            "cu-chat",
            lambda: ChatBackend("scripted-model", chat.base_url, retry=RetryPolicy(2, 0.01, 0.02)),
            name="cu-chat:scripted-model",
        )
        result = run(corpus, agent, "cu-chat:scripted-model", out)
    finally:
        chat.stop()
    (record,) = result.records
    return record, chat


def test_a_model_that_answered_and_then_kept_failing_is_the_systems_failure(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    record, _ = _failing_run(
        embedded_corpus(1), tmp_path / "runs", Behaviour(reply='{"type": "screenshot"}')
    )
    assert record.status == "failed" and record.infrastructure is None
    assert record.facts and record.facts.model_failure and record.facts.claim == "error"
    assert record.facts.model_failed_calls == 1 and record.facts.model_retries == 1
    assert record.facts.model_calls == 3  # one answered, one failed and retried once


def test_a_model_that_never_answered_is_lost_to_the_endpoint_not_scored(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    record, chat = _failing_run(embedded_corpus(1), tmp_path / "runs")
    assert record.status == "unmeasurable" and record.score == 0 and not record.checks
    assert record.infrastructure and record.infrastructure.kind == "model"
    assert "(HTTP 500)" in record.infrastructure.detail
    assert f"from {chat.base_url}/chat/completions" in record.infrastructure.detail
    assert record.facts and record.facts.model_failure
    assert (record.facts.model_calls, record.facts.model_failed_calls) == (2, 1)


def test_reports_without_usage_have_no_usage_tables() -> None:
    plain = TaskRecord(
        task_id="t",
        attempt="1",
        family="f",
        tier="easy",
        status="failed",
        score=0,
        earned=0,
        weight=1,
        facts=AttemptFacts(claim="none"),
    )
    assert summarize([plain]).usage is None


def test_bad_price_tables_are_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "prices.yaml"
    bad.write_text("m1: {input_per_mtok: 1.0, output_per_mtok: -2}\n")
    with pytest.raises(EndstateError, match=r"prices.yaml: m1.output_per_mtok: .*greater than"):
        load_prices(bad)
    bad.write_text("m1: {input_per_mtok: 1.0}\n")
    with pytest.raises(EndstateError, match=r"m1.output_per_mtok: Field required"):
        load_prices(bad)
    bad.write_text("m1: {input_per_mtok: 1, output_per_mtok: 1, per_token: 3}\n")
    with pytest.raises(EndstateError, match=r"m1.per_token: Extra inputs"):
        load_prices(bad)
    bad.write_text("- just a list\n")
    with pytest.raises(EndstateError, match="expected a mapping of model name"):
        load_prices(bad)


def _endstate(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "endstate", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env | {k: v for k, v in os.environ.items() if k == "HOME"},
    )


def test_a_bad_price_file_stops_the_run_in_one_line(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"m1": {"input_per_mtok": "free", "output_per_mtok": 1}}))
    proc = _endstate("run", "--agent", "null", "--out", tmp_path / "runs", "--prices", prices)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr + proc.stdout
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    assert f"{prices}: m1.input_per_mtok: Input should be a valid number" in errors[0]
    assert not (tmp_path / "runs").exists()


def test_bad_observe_and_viewport_values_are_refused_in_one_line() -> None:
    with pytest.raises(EndstateError, match=r"^--observe 'pixels': expected one of screenshot"):
        parse_observation("pixels")
    for bad in ("huge", "1280", "10x10", "1280x800x2"):
        with pytest.raises(EndstateError, match=r"^--viewport .*expected WIDTHxHEIGHT"):
            parse_viewport(bad)
    assert parse_viewport("1024X768") == Viewport(1024, 768)


def test_a_computer_use_agent_given_the_guidance_prompt_reads_it_and_pins_it(
    embedded_corpus: Callable[..., Path], chat: ChatDouble, tmp_path: Path
) -> None:
    from endstate.agents.llm import GUIDANCE

    corpus = embedded_corpus(1)
    chat.queue(Behaviour(reply=GIVE_UP), Behaviour(reply=GIVE_UP))
    plain = make_agent("cu-chat:scripted-model", dict(base_url=chat.base_url))
    guided = make_agent(
        "cu-chat:scripted-model", dict(base_url=chat.base_url, prompt_mode="task+guidance")
    )
    first = run(corpus, plain, "cu-chat:scripted-model", tmp_path / "plain")
    second = run(corpus, guided, "cu-chat:scripted-model", tmp_path / "guided")
    plain_request, guided_request = (json.dumps(r) for r in chat.requests)
    marker = json.dumps(GUIDANCE.strip().splitlines()[0])[1:-1]
    assert marker not in plain_request and marker in guided_request
    pinned = [
        json.loads((r.store.root / "manifest.json").read_text())["agent"]["config"]["prompt_mode"]
        for r in (first, second)
    ]
    assert pinned == ["task", "task+guidance"]

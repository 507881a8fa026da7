"""`endstate run` end to end on the embedded suite, through real Chromium, with each agent kind."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path

from endstate.agents.registry import make_agent
from endstate.runs.session import RunOptions, RunResult, execute
from openai_double import Behaviour, ChatDouble

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_AGENT = ROOT / "examples" / "cdp_agent.py"


def run(corpus: Path, spec: str, out: Path, **kw: object) -> RunResult:
    options = kw.pop("agent_options", None)
    agent = make_agent(spec, options)  # type: ignore[arg-type]
    opts = RunOptions(corpus=corpus, agent=agent, agent_spec=spec, out=out, **kw)  # type: ignore[arg-type]
    return asyncio.run(execute(opts))


def test_null_agent_scores_below_full_credit_with_a_complete_run_directory(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    result = run(embedded_corpus(2), "null", tmp_path / "runs", attempts=2, workers=2)
    records = result.records
    assert sorted((r.task_id, r.attempt) for r in records) == [
        ("pa-easy-1", "1"),
        ("pa-easy-1", "2"),
        ("pa-easy-2", "1"),
        ("pa-easy-2", "2"),
    ]
    assert all(r.status == "failed" and r.score < 1.0 for r in records)
    assert all(r.facts and r.facts.claim == "none" and r.facts.episode_id for r in records)
    assert len({r.facts.episode_id for r in records if r.facts}) == 4  # a fresh episode each
    root = result.store.root
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["mode"] == "scored"
    assert manifest["corpus"]["tree_hash"] and manifest["environment"]["world_hash"]
    assert manifest["environment"]["fingerprint"] and manifest["build"]["version"]
    assert len(manifest["disclosure"]) == 9
    assert (root / "traces" / "pa-easy-1" / "2" / "final.json").exists()
    assert "Full-credit passes: 0/2" in (root / "report.txt").read_text()
    html = (root / "report.html").read_text()
    assert "<svg" in html and html.count("<td>pa-easy-") == 4


def test_replay_earns_full_credit_and_is_marked_validation(
    embedded_corpus: Callable[..., Path], reference_trajectory: Path, tmp_path: Path
) -> None:
    result = run(embedded_corpus(1), f"replay:{reference_trajectory}", tmp_path / "runs")
    (record,) = result.records
    assert record.status == "passed" and record.score == 1.0
    assert record.facts and record.facts.claim == "done" and record.facts.steps == 8
    assert result.manifest.mode == "validation"
    assert "VALIDATION run" in result.report
    actions = json.loads(
        (result.store.root / "traces" / "pa-easy-1" / "1" / "actions.json").read_text()
    )
    assert [a["action"]["type"] for a in actions][:2] == ["goto", "click"]


def test_command_example_agent_drives_the_harness_browser_over_cdp(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    result = run(
        embedded_corpus(1, viewed=True),
        f"command:{sys.executable} {EXAMPLE_AGENT}",
        tmp_path / "runs",
        time_limit=60,
    )
    (record,) = result.records
    assert record.facts is not None
    assert record.facts.claim == "gave_up", record.facts
    assert "page heading" in (record.facts.final_message or "")
    # Playwright over CDP works under the sandbox's seccomp filter and Landlock domain.
    sandbox = record.facts.sandbox
    assert sandbox is not None and (sandbox.agent_seccomp or "").endswith("calls denied")
    assert sandbox.supervisor_dumpable is False
    assert record.status == "failed"
    # The environment saw the agent's browser open a record: testimony, not the agent's word.
    assert [c.outcome for c in record.checks] == ["fail", "fail", "pass"]
    assert record.state_source and record.state_source.startswith("embedded:")


def test_llm_agent_against_a_scripted_chat_endpoint(
    embedded_corpus: Callable[..., Path], reference_trajectory: Path, tmp_path: Path
) -> None:
    actions = json.loads(reference_trajectory.read_text())["actions"]
    chat = ChatDouble().start()
    try:
        chat.queue(Behaviour(reply="I think I should click something"))  # malformed: no JSON
        chat.queue(*(Behaviour(reply=json.dumps(a)) for a in actions))
        result = run(
            embedded_corpus(1),
            "llm:scripted-model",
            tmp_path / "runs",
            agent_options=dict(base_url=chat.base_url),
        )
    finally:
        chat.stop()
    (record,) = result.records
    assert record.status == "passed", [c.detail for c in record.checks]
    assert record.facts and record.facts.claim == "done"
    assert record.facts.steps == len(actions) + 1
    assert record.facts.prompt_tokens and record.facts.completion_tokens
    second_request = json.dumps(chat.requests[1]["messages"])
    assert "JSON" in second_request  # the parse error was fed back


def test_judge_down_flags_the_task_and_it_cannot_pass(
    embedded_corpus: Callable[..., Path], reference_trajectory: Path, tmp_path: Path
) -> None:
    from endstate.scoring.judge import Judge, JudgeConfig

    chat = ChatDouble(default=Behaviour(status=500)).start()
    try:
        judge = Judge(JudgeConfig(model="judge-x", base_url=chat.base_url, max_retries=0))
        result = run(
            embedded_corpus(1, rubric=True),
            f"replay:{reference_trajectory}",
            tmp_path / "runs",
            judge=judge,
        )
    finally:
        chat.stop()
    (record,) = result.records
    assert record.flagged and record.status == "failed"
    assert record.earned == 2 and record.weight == 3
    assert record.checks[2].outcome == "ungraded" and "HTTP 500" in record.checks[2].detail


def test_a_link_that_opens_a_new_tab_is_followed_in_the_agents_page(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    corpus = embedded_corpus(1)
    task = corpus / "prior_auth" / "pa-easy-1.json"
    doc = json.loads(task.read_text())
    doc["evals"] = [
        {
            "type": "jmespath",
            "query": "length(events[?system=='fax' && kind=='page.view']) > `0`",
            "expected_value": True,
            "points": 1,
        }
    ]
    task.write_text(json.dumps(doc))
    ref = doc["goal"].split()[2].rstrip(".")
    trajectory = tmp_path / "fax.json"
    trajectory.write_text(
        json.dumps(
            {
                "version": 1,
                "actions": [
                    {"type": "goto", "url": f"/referrals/{ref}"},
                    {"type": "click", "target": {"role": "tab", "name": "Documents"}},
                    {"type": "click", "target": {"role": "link", "name": "Send documents by fax"}},
                    {
                        "type": "fill",
                        "target": {"label": "Cover note"},
                        "value": "Records attached.",
                    },
                    {"type": "done", "message": "fax page reached"},
                ],
            }
        )
    )
    result = run(corpus, f"replay:{trajectory}", tmp_path / "runs")
    (record,) = result.records
    actions = json.loads(
        (result.store.root / "traces" / "pa-easy-1" / "1" / "actions.json").read_text()
    )
    assert "opened a new tab; followed here" in actions[2]["result"]
    assert actions[3]["ok"], actions[3]  # the fax form is in the agent's own page now
    assert record.status == "passed"


def test_runs_on_the_built_in_corpus_break_down_by_template(tmp_path: Path) -> None:
    from endstate.builtin import builtin_corpus_path

    result = run(
        builtin_corpus_path(), "null", tmp_path / "runs", tasks="dn-*-00[1-4],pa-*-00[1-4]"
    )
    assert len(result.records) == 8
    templates = {r.template for r in result.records}
    assert None not in templates and len(templates) >= 2
    assert set(result.summary.by_template) == templates
    assert sum(c.tasks for c in result.summary.by_template.values()) == 8
    assert "By template" in result.report
    assert all(r.status == "failed" for r in result.records)

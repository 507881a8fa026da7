"""Sampling, labels and the report over run directories on disk, through the real CLI where
a user would meet the behaviour; the blind page checked in process against a flipped verdict."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from starlette.testclient import TestClient

from endstate.corpus.model import Task
from endstate.judge_audit.app import make_app
from endstate.judge_audit.items import read_run_checks
from endstate.judge_audit.labels import append_label, labels_path, read_labels
from endstate.judge_audit.report import as_json, build_report
from endstate.judge_audit.sample import create_sample, read_sample, sample_path
from endstate.runs.store import RunStore
from endstate.scoring.judge import Judge, JudgeConfig
from endstate.scoring.task_score import score_task
from openai_double import Behaviour, ChatDouble

from .conftest import DETAIL_MARK, HUMAN, JUDGE, judged_records, run_cli, write_run

LOOPBACK = "http://127.0.0.1"


def test_the_sample_takes_every_stratum_in_turn_and_the_seed_repeats_it(judged_run: Path) -> None:
    items = {i.id: i for i in read_run_checks(judged_run).items}
    first = create_sample(judged_run, size=4, seed=7)
    strata = Counter((items[s.id].rubric, items[s.id].verdict) for s in first.items)
    assert len(strata) == 4 and set(strata.values()) == {1}  # 2 rubrics x pass/fail, one each
    again = create_sample(judged_run, size=4, seed=7, replace=True)
    assert [s.id for s in again.items] == [s.id for s in first.items]
    whole = create_sample(judged_run, size=50, seed=7, replace=True)
    assert sorted(s.id for s in whole.items) == sorted(items) and whole.judged == 10
    text = sample_path(judged_run).read_text()
    # The file says what was sampled and what its labeller is shown, never the judge's verdict.
    assert set(json.loads(text)["items"][0]) == {
        "id",
        "task_id",
        "attempt",
        "index",
        "rubric",
        "shown",
    }
    assert DETAIL_MARK not in text and "votes" not in text and "majority" not in text


def test_sampling_twice_is_refused_and_a_run_without_judged_checks_says_why(
    judged_run: Path, unjudged_run: Path
) -> None:
    drawn = run_cli("judge", "audit", "sample", str(judged_run), "--size", "3")
    assert drawn.returncode == 0 and "sampled 3 of 10 judged checks (seed 0)" in drawn.stdout
    again = run_cli("judge", "audit", "sample", str(judged_run))
    assert again.returncode == 1 and "a sample already exists" in again.stderr
    nothing = run_cli("judge", "audit", "sample", str(unjudged_run))
    assert nothing.returncode == 1
    assert nothing.stderr.strip() == (
        f"error: {unjudged_run}: nothing to audit: none of the run's 3 rubric checks was graded "
        "by a judge (3 no judge configured)"
    )
    assert "Traceback" not in nothing.stderr and not sample_path(unjudged_run).exists()
    serve = run_cli("judge", "audit", "label", str(unjudged_run), "--no-open")
    assert serve.returncode == 1 and serve.stderr.strip() == nothing.stderr.strip()


def test_the_report_says_plainly_when_there_is_no_sample_or_no_label(judged_run: Path) -> None:
    no_sample = run_cli("judge", "audit", "report", str(judged_run))
    assert no_sample.returncode == 1
    assert f"{judged_run}: no judge-audit sample yet" in no_sample.stderr
    create_sample(judged_run, size=10, seed=0)
    no_labels = run_cli("judge", "audit", "report", str(judged_run))
    assert no_labels.returncode == 1 and f"{judged_run}: no labels yet" in no_labels.stderr
    assert "Traceback" not in no_sample.stderr + no_labels.stderr


def label_all(run: Path, name: str, labels: dict[str, str]) -> None:
    for sampled in read_sample(run).items:
        append_label(run, name, sampled.id, sampled.shown, labels[sampled.task_id])  # type: ignore[arg-type]


def test_two_labellers_relabels_and_a_changed_answer(judged_run: Path, tmp_path: Path) -> None:
    create_sample(judged_run, size=10, seed=0)
    label_all(judged_run, "ana", HUMAN)
    label_all(judged_run, "bo", JUDGE)  # bo agrees with the judge on every item...
    bo_first = next(s for s in read_sample(judged_run).items if s.task_id == "t-01")
    append_label(judged_run, "bo", bo_first.id, bo_first.shown, "fail", "changed my mind")
    # ...but last labelled t-01 fail, after seeing the verdict: the latest counts.
    history = read_labels(labels_path(judged_run, "bo"))
    assert len(history) == 11 and [h.after_reveal for h in history].count(True) == 1
    out = tmp_path / "audit.json"
    shown = run_cli("judge", "audit", "report", str(judged_run), "--json", str(out))
    assert shown.returncode == 0, shown.stderr
    report = json.loads(out.read_text())
    ana, bo = report["labellers"]
    assert (ana["name"], ana["items"], ana["agree"]) == ("ana", 10, 8)
    assert (bo["name"], bo["agree"], bo["changed_after_reveal"]) == ("bo", 9, 1)
    assert report["pooled"]["items"] == 20 and report["pooled"]["agree"] == 17
    # ana and bo: alike except t-06 and t-10 (bo follows the judge) and t-01 (bo changed).
    (pair,) = report["human_human"]
    assert pair["labellers"] == ["ana", "bo"] and (pair["items"], pair["agree"]) == (10, 7)
    disagreeing = {
        (d["task_id"], d["labeller"]) for r in report["rubrics"] for d in r["disagreements"]
    }
    assert disagreeing == {("t-06", "ana"), ("t-10", "ana"), ("t-01", "bo")}
    assert "judge vs bo: 9/10 agree" in shown.stdout and "ana vs bo: 7/10 agree" in shown.stdout
    assert "comment: changed my mind" in shown.stdout

    # The run is rescored and t-06's answer now reads differently: labels of the old text
    # are not compared with a verdict on the new one.
    records = judged_records()
    records[5].checks[1].answer = "A different answer."
    rescored = tmp_path / "rescored"
    write_run(rescored, records)
    (rescored / "judge-audit").mkdir()
    for name in ("sample.json", "labels-ana.jsonl"):
        (rescored / "judge-audit" / name).write_bytes(
            (judged_run / "judge-audit" / name).read_bytes()
        )
    after = as_json(build_report(rescored))
    assert after["excluded"]["changed"] == 1 and after["excluded"]["stale"] == 1
    assert (after["pooled"]["items"], after["pooled"]["agree"]) == (9, 8)


def test_the_page_before_labelling_is_the_same_whatever_the_judge_said(
    judged_run: Path, tmp_path: Path
) -> None:
    create_sample(judged_run, size=10, seed=0)
    flipped_records = judged_records()
    for r in flipped_records:
        check = r.checks[1]
        check.outcome = "fail" if check.outcome == "pass" else "pass"
        check.votes = [1 - v for v in check.votes or []]
        check.detail = "judge majority reversed"
    flipped = write_run(tmp_path / "flipped", flipped_records)
    (flipped / "judge-audit").mkdir()
    (flipped / "judge-audit" / "sample.json").write_bytes(sample_path(judged_run).read_bytes())
    pages = []
    for run in (judged_run, flipped):
        client = TestClient(make_app(run, token="fixed"), base_url=LOOPBACK)
        pages.append([client.get(f"/label/ana/{n}").text for n in range(1, 11)])
        pages.append([client.get("/label/ana/").text])
    assert pages[0] == pages[2] and pages[1] == pages[3]
    assert 'id="judge-verdict"' not in "".join(pages[0]) and "majority" not in "".join(pages[0])


def test_a_label_needs_this_servers_token_and_a_loopback_host(judged_run: Path) -> None:
    create_sample(judged_run, size=10, seed=0)
    client = TestClient(make_app(judged_run, token="right"), base_url=LOOPBACK)
    form = {"label": "pass", "comment": ""}
    assert client.post("/label/mallory/1", data=form).status_code == 403
    assert client.post("/label/mallory/1", data=form | {"token": "wrong"}).status_code == 403
    elsewhere = client.post("/label/mallory/1", data=form | {"token": "right"},
                            headers={"origin": "http://evil.example"})  # fmt: skip
    assert elsewhere.status_code == 403
    rebound = TestClient(make_app(judged_run, token="right"), base_url="http://evil.example")
    assert rebound.get("/").status_code == 421
    assert not labels_path(judged_run, "mallory").exists()
    bad_name = client.post("/label/..%2Fx/1", data=form | {"token": "right"})
    assert bad_name.status_code in (400, 404)
    saved = client.post("/label/mallory/1", data=form | {"token": "right"}, follow_redirects=False)
    assert saved.status_code == 303 and len(read_labels(labels_path(judged_run, "mallory"))) == 1


def test_checks_judged_through_the_real_client_become_items(
    chat: ChatDouble, rubric_task: Task, tmp_path: Path
) -> None:
    chat.queue(*[Behaviour(reply='{"grade": 0, "reason": "does not say"}')] * 3)
    judge = Judge(JudgeConfig(model="grader-1", base_url=chat.base_url, max_retries=0))
    state = {"done": True, "note": "Auth is needed; sent to the payer."}
    scored = score_task(rubric_task, state, judge=judge)
    run = write_run(tmp_path / "run", [scored])
    (item,) = read_run_checks(run).items
    assert (item.verdict, item.votes, item.judge_model) == ("fail", (0, 0, 0), "grader-1")
    assert item.answer == state["note"] and item.context == "note"
    assert item.rubric == "Agent documented the determination"
    assert item.rubric_text.startswith("Does the note say no authorization is needed?")
    create_sample(run, size=5, seed=0)
    page = TestClient(make_app(run, token="t"), base_url=LOOPBACK).get("/label/ana/1").text
    assert state["note"] in page and "Does the note say" in page
    assert RunStore(run).read_records()[0].checks[1].outcome == "fail"


def test_a_changed_item_cannot_be_labelled_and_a_bad_label_line_is_named(
    judged_run: Path, tmp_path: Path
) -> None:
    create_sample(judged_run, size=10, seed=0)
    records = judged_records()
    records[2].checks[1].rubric_input = {"description": "d", "context": "c", "rubric": "new"}
    rescored = write_run(tmp_path / "rescored", records)
    (rescored / "judge-audit").mkdir()
    (rescored / "judge-audit" / "sample.json").write_bytes(sample_path(judged_run).read_bytes())
    position = next(n for n, s in enumerate(read_sample(rescored).items, 1) if s.task_id == "t-03")
    client = TestClient(make_app(rescored, token="k"), base_url=LOOPBACK)
    page = client.get(f"/label/ana/{position}").text
    assert "what the judge read has changed since the sample was drawn" in page
    assert 'id="label-form"' not in page
    refused = client.post(f"/label/ana/{position}", data={"label": "pass", "token": "k"})
    assert refused.status_code == 409 and not labels_path(rescored, "ana").exists()

    bad = labels_path(judged_run, "ana")
    bad.write_text('{"item": "t-01/1/1", "label": "maybe"}\n')
    shown = run_cli("judge", "audit", "report", str(judged_run))
    assert shown.returncode == 1 and "Traceback" not in shown.stderr
    assert f"{bad}: line 1 is not a label" in shown.stderr
    served = TestClient(make_app(judged_run, token="k"), base_url=LOOPBACK).get("/label/ana/1")
    assert served.status_code == 500 and "line 1 is not a label" in served.text

"""An agent kind and an environment kind added from outside endstate's tree, through entry
points only (tests/fixtures/plugins), run end to end by the real `endstate` command."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from conftest import FIXTURES
from test_cli import ENDSTATE

PLUGINS = FIXTURES / "plugins"


def task(task_id: str, expected: str) -> dict[str, Any]:
    """The toy plug-in's task helper, loaded from its file: the folder must never join this
    process's sys.path, or its entry points would register the toys in every other test."""
    spec = importlib.util.spec_from_file_location("toy_plugin_tasks", PLUGINS / "toy_plugin.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made: dict[str, Any] = module.task(task_id, expected)
    return made


def _path(folder: Path) -> str:
    """The plug-in folder, then whatever PYTHONPATH already holds (the tree under test)."""
    return os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH", "")) if p)


def _endstate(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": _path(PLUGINS), "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [str(ENDSTATE), *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env,
        timeout=120,
    )  # fmt: skip


def test_a_plugged_in_agent_runs_in_a_plugged_in_environment(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus" / "toys"
    corpus.mkdir(parents=True)
    (corpus / "a.json").write_text(json.dumps(task("toy-1", "42")))
    (corpus / "b.json").write_text(json.dumps(task("toy-2", "7")))
    proc = _endstate(
        "run", "--corpus", corpus.parent, "--env", "toy", "--agent", "toy:4",
        "--agent-option", "suffix=2", "--out", tmp_path / "runs", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Full-credit passes: 1/2" in proc.stdout
    (run_dir,) = (tmp_path / "runs").iterdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["environment"]["kind"] == "toy"
    assert manifest["agent"] == {
        "spec": "toy:4", "kind": "toy", "name": "toy", "config": {"answer": "42"},
        "options": {"suffix": "2"}, "scored": True, "build": None,
    }  # fmt: skip
    # An option the kind does not declare is refused by name, with the options it has.
    refused = _endstate(
        "run", "--corpus", corpus.parent, "--env", "toy", "--agent", "toy:4",
        "--agent-option", "observe=both", "--out", tmp_path / "runs", cwd=tmp_path,
    )  # fmt: skip
    assert refused.returncode == 1
    assert "agent kind 'toy' has no option 'observe' (its options: suffix)" in refused.stderr
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    assert {r["task_id"]: r["status"] for r in records} == {"toy-1": "passed", "toy-2": "failed"}


def test_the_plugged_in_kinds_are_listed_where_a_spec_is_wrong(tmp_path: Path) -> None:
    proc = _endstate("run", "--agent", "nope", cwd=tmp_path)
    assert proc.returncode == 1
    assert (
        "expected null, replay:FILE|DIR, tools-replay:DIR, llm-tools:MODEL, command:CMD, "
        "llm:MODEL, cu-chat:MODEL, cu-gemini:MODEL, cu-anthropic:MODEL, cu-openai:MODEL, toy:ANSWER"
    ) in proc.stderr
    proc = _endstate("run", "--env", "nope", "--agent", "null", cwd=tmp_path)
    assert "unknown environment (expected embedded, hab, toy)" in proc.stderr


def test_a_plugged_in_system_is_served_stored_graded_and_fingerprinted(tmp_path: Path) -> None:
    """One page, one table, one state-document slice: added without editing endstate."""
    doc = {
        "id": "desk-1",
        "goal": "Open the toy desk and answer its question with 42.",
        "website": {"id": "toy_desk", "name": "Toy desk"},
        "difficulty": "easy",
        "evals": [
            {"type": "jmespath", "query": "toy_desk.answer", "expected_value": "42",
             "points": 1, "description": "answered 42"},
            {"type": "jmespath", "query": "toy_desk.saves", "expected_value": 1,
             "points": 1, "description": "saved once"},
        ],
        "config": {"start_url": "/answer?task_id={{TASK_ID}}&run_id={{RUN_ID}}"},
    }  # fmt: skip
    corpus = tmp_path / "corpus" / "toys"
    corpus.mkdir(parents=True)
    (corpus / "desk.json").write_text(json.dumps(doc))
    actions = [
        {"type": "fill", "target": {"label": "Answer"}, "value": "42"},
        {"type": "click", "target": {"role": "button", "name": "Save answer"}},
        {"type": "done", "message": "answered"},
    ]
    trajectory = tmp_path / "answer.json"
    trajectory.write_text(json.dumps({"version": 1, "actions": actions}))
    proc = _endstate(
        "run", "--corpus", corpus.parent, "--agent", f"replay:{trajectory}",
        "--out", tmp_path / "runs", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Full-credit passes: 1/1" in proc.stdout, proc.stdout
    # Its outcome section is in the report; its gate outcome is one a gate can bound.
    assert "Toy desk saves" in proc.stdout and "answers saved" in proc.stdout, proc.stdout
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert "Toy desk saves" in (run_dir / "report.html").read_text()
    twice = tmp_path / "twice.json"
    twice.write_text(json.dumps({"version": 1, "actions": [*actions[:2], *actions]}))
    gates = tmp_path / "gates.yaml"
    gates.write_text("gates:\n  - {metric: count, outcome: saved_more_than_once, max: 0}\n")
    for path, verdict in ((trajectory, 0), (twice, 1)):
        out = tmp_path / f"gated-{path.stem}"
        ran = _endstate(
            "run", "--corpus", corpus.parent, "--agent", f"replay:{path}", "--gates", gates,
            "--out", out, cwd=tmp_path,
        )  # fmt: skip
        assert ran.returncode == 0, ran.stderr
        (gated,) = out.iterdir()
        judged = _endstate("gate", gated, cwd=tmp_path)
        assert judged.returncode == verdict, judged.stdout + judged.stderr
        assert "saved_more_than_once" in judged.stdout
    fingerprint = _endstate("env", "fingerprint", cwd=tmp_path)
    assert fingerprint.returncode == 0, fingerprint.stderr
    pages = json.loads(fingerprint.stdout)["systems"]["toy_desk"]["pages"]
    assert pages["/answer"]["status"] == 200 and pages["/answer"]["forms"]


def test_a_broken_plug_in_is_refused_in_one_line_naming_it(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": _path(FIXTURES / "bad_plugins"), "NO_COLOR": "1"}
    proc = subprocess.run(
        [str(ENDSTATE), "run", "--agent", "null", "--out", str(tmp_path / "runs")],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "endstate.agents plug-in 'broken' (no_such_module_anywhere:KIND) failed to load" in (
        proc.stderr
    )


def test_a_plugged_in_task_template_generates_tasks_that_validate(tmp_path: Path) -> None:
    """A template from outside endstate's tree (its module plus one entry point) generates
    tasks that `corpus validate` proves solvable, failed by the null agent, mutations caught."""
    template = "pa.easy.toy-member-note"
    out = tmp_path / "toy-corpus"
    proc = _endstate(
        "corpus", "generate", "--out", out, "--count", "2", "--template", template, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    tasks = [json.loads(p.read_text()) for p in sorted(out.glob("*/*.json"))]
    assert [t["template_id"] for t in tasks] == [template, template]
    lock = json.loads((out / "endstate.lock.json").read_text())
    assert f"(with task templates from installed packages: {template})" in lock["source"]
    proc = _endstate("corpus", "validate", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "solvable 2/2, discriminating 2/2, mutation coverage 4/4 (100%)" in proc.stdout


def test_a_task_template_for_an_unknown_family_is_refused_naming_it(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    (plugin / "stray-0.1.dist-info").mkdir(parents=True)
    (plugin / "stray-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: stray\nVersion: 0.1\n"
    )
    (plugin / "stray-0.1.dist-info" / "entry_points.txt").write_text(
        "[endstate.task_templates]\nstray = stray_template:TEMPLATE\n"
    )
    (plugin / "stray_template.py").write_text(
        "from endstate.builtin.templates.base import TaskTemplate\n"
        "class Stray(TaskTemplate):\n"
        "    id = 'billing.easy.stray'\n    family = 'billing'\n    tier = 'easy'\n"
        "    scenario_label = 'x'\n"
        "TEMPLATE = Stray()\n"
    )
    env = {**os.environ, "PYTHONPATH": _path(plugin), "NO_COLOR": "1"}
    proc = subprocess.run(
        [str(ENDSTATE), "corpus", "generate", "--out", str(tmp_path / "c"), "--count", "3"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "task template 'billing.easy.stray': family 'billing' is not one of" in proc.stderr
    assert not (tmp_path / "c").exists()


def test_the_system_list_names_each_system_its_origin_and_its_own_tables(tmp_path: Path) -> None:
    proc = _endstate("env", "systems", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = {line.split("│")[1].strip(): line for line in proc.stdout.splitlines() if "│" in line}
    assert {"ehr", "payer_a", "payer_b", "fax", "toy_desk"} <= set(rows)
    assert "toy_system:SYSTEM" in rows["toy_desk"] and "toy_answers" in rows["toy_desk"]
    assert "built-in" in rows["ehr"] and "auth_records" in rows["ehr"]


def test_the_state_document_contract_has_a_row_for_every_built_in_system() -> None:
    """The docs table of top-level keys is held to the registry: a system added without its
    row in docs/state-document.md fails here."""
    from endstate.envs.suite.registry import SYSTEMS

    docs = (Path(__file__).parents[1] / "docs" / "state-document.md").read_text()
    built_in = [n for n in SYSTEMS.items() if SYSTEMS.origin(n) == "built-in"]
    assert built_in and all(f"| `{name}` | object |" in docs for name in built_in), built_in
    assert all(f"## `{name}`" in docs for name in built_in)


def test_a_plugged_in_corpus_format_claims_its_own_suffix(tmp_path: Path) -> None:
    """`.toytask` files, read by a format from outside endstate's tree, lint and run."""
    corpus = tmp_path / "corpus" / "toys"
    corpus.mkdir(parents=True)
    (corpus / "a.toytask").write_text("id: toyfile-1\ngoal: Answer the question.\nanswer: 42\n")
    (corpus / "b.toytask").write_text("id: toyfile-2\ngoal: Answer the question.\nanswer: 7\n")
    (corpus / "c.json").write_text(json.dumps(task("toy-3", "42")))  # hab-v2 beside it
    linted = _endstate("corpus", "lint", corpus.parent, cwd=tmp_path)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert "0 error(s)" in linted.stdout
    proc = _endstate(
        "run", "--corpus", corpus.parent, "--env", "toy", "--agent", "toy:42",
        "--out", tmp_path / "runs", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    statuses = {r["task_id"]: r["status"] for r in records}
    assert statuses == {"toyfile-1": "passed", "toyfile-2": "failed", "toy-3": "passed"}
    # Bad content and a failing format are problems naming the file, never a traceback.
    (corpus / "bad.toytask").write_text("id: toyfile-4\nno colon here\n")
    (corpus / "odd.toytask").write_text("explode\n")
    linted = _endstate("corpus", "lint", corpus.parent, cwd=tmp_path)
    assert linted.returncode == 1 and "Traceback" not in linted.stderr + linted.stdout
    assert "toys/bad.toytask: line 2: expected key: value" in linted.stdout
    assert "toys/bad.toytask: goal: missing 'goal'" in linted.stdout
    assert (
        "toys/odd.toytask: $: corpus format 'toy-task-v1' failed: ValueError: the toy format "
        "cannot read this" in linted.stdout
    )


def test_a_check_type_no_kind_scores_is_one_line_naming_the_file_and_type(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus" / "toys"
    corpus.mkdir(parents=True)
    doc = task("toy-1", "42")
    doc["evals"].append({"type": "toy_unknown", "points": 1, "description": "what?"})
    (corpus / "a.json").write_text(json.dumps(doc))
    for args in (
        ("corpus", "lint", corpus.parent),
        ("run", "--corpus", corpus.parent, "--env", "toy", "--agent", "toy:42"),
    ):
        proc = (
            _endstate(*args, "--out", tmp_path / "runs", cwd=tmp_path)
            if args[0] == "run"
            else (_endstate(*args, cwd=tmp_path))
        )
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stdout + proc.stderr
        said = proc.stdout + proc.stderr
        assert "toys/a.json" in said and "unknown check type 'toy_unknown'" in said, said
    assert not (tmp_path / "runs").exists()

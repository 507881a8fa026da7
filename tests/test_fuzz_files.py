"""Hostile task and state files: each gets one clear line (file, field, reason) and never stops
the others. Property-based (Hypothesis) over the loader, lint, scoring and the reports, plus a
folder holding every hostile class named in the issue, scored through the real command line."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import jmespath_check, judge_check, task_doc
from endstate import cli
from endstate.corpus.loader import read_tasks
from endstate.corpus.model import Task
from endstate.corpus.problems import errors
from endstate.jsonfile import JsonRefused, decode
from endstate.report.disclosure import judge_text
from endstate.report.html import render_html
from endstate.report.summary import summarize
from endstate.report.text import render_text
from endstate.scoring.states import read_state
from endstate.scoring.task_score import score_task
from test_cli import ENDSTATE

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # jmespath

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Text built to hurt: markup, control characters, lone surrogates, path climbing, NUL.
NASTY_TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        ["[/]", "[red]x", "[bold", "\ud800", "x\udcff", "../../escape", "a\x00b", "", " ", "\n"]
    ),
)
NASTY_NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([10**4000, -(10**300), 1e308, 0, -1]),
)
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), NASTY_NUMBERS, NASTY_TEXT),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(NASTY_TEXT, inner, max_size=4)
    ),
    max_leaves=20,
)
QUERY_PARTS = st.sampled_from(
    ["a", "b", ".", "[", "]", "[::0]", "[*]", "|", "keys(@)", "ceil(`1e400`)", "`[/]`", "@",
     "length(@)", "sort(@)", "&&", "||", "!", "==", "'x'", "`1`", "{", "}", ":", ",", "*",
     "values(@)", "to_number('1e999')", "abs(`-1`)", "not_null(a)", "contains(a, 'x')"]
)  # fmt: skip
QUERIES = st.one_of(st.lists(QUERY_PARTS, min_size=1, max_size=8).map("".join), NASTY_TEXT)


def _encode(value: Any) -> bytes:
    """JSON as a hostile writer would produce it: NaN, Infinity, surrogates and all."""
    return json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")


def _mutated_task(field: str, value: Any) -> dict[str, Any]:
    doc = task_doc("hostile-1", [jmespath_check("done"), judge_check()])
    if field.startswith("evals."):
        doc["evals"][0][field.split(".", 1)[1]] = value
    else:
        doc[field] = value
    return doc


FIELDS = st.sampled_from(
    ["id", "goal", "difficulty", "category", "points", "possible", "website", "config",
     "evals.points", "evals.query", "evals.expected_value", "evals.contains_value",
     "evals.description", "evals.type", "metadata"]
)  # fmt: skip


def _corpus_with(tmp: Path, hostile: bytes) -> Path:
    root = tmp / "corpus"
    (root / "prior_auth").mkdir(parents=True, exist_ok=True)
    (root / "prior_auth" / "valid.json").write_text(json.dumps(task_doc("valid-1")))
    (root / "prior_auth" / "hostile.json").write_bytes(hostile)
    return root


@contextlib.contextmanager
def _fresh_dir(base: Path) -> Any:
    import tempfile

    with tempfile.TemporaryDirectory(dir=base) as name:
        yield Path(name)


def _run_cli(*args: str) -> tuple[int, str, str]:
    """The real entry point in-process (main(): its error handling included)."""
    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["endstate", *args]
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue()


@FUZZ
@given(field=FIELDS, value=JSON_VALUES)
def test_a_hostile_task_field_never_stops_the_loader_or_lint(
    field: str, value: Any, tmp_path: Path
) -> None:
    with _fresh_dir(tmp_path) as tmp:
        root = _corpus_with(tmp, _encode(_mutated_task(field, value)))
        tasks, problems = read_tasks(root)
        assert "valid-1" in [t.id for t in tasks]
        assert all(p.file.endswith(".json") and p.reason for p in problems)
        # A task that loads has finite points and a safe id, whatever the field held.
        for task in tasks:
            assert math.isfinite(task.grading.weight)
            assert task.id.isprintable() and "/" not in task.id and ".." not in task.id
        code, out, err = _run_cli("corpus", "lint", str(root))
        assert "Traceback" not in out + err
        assert code == (1 if errors(problems) else 0), out + err
        for p in errors(problems):  # every error printed once, whole and unstyled
            assert p.line().encode("utf-8", "backslashreplace").decode() in out


@FUZZ
@given(raw=st.one_of(st.binary(max_size=200), JSON_VALUES.map(_encode)))
def test_any_bytes_as_a_task_file_are_one_clear_problem_or_a_task(
    raw: bytes, tmp_path: Path
) -> None:
    with _fresh_dir(tmp_path) as tmp:
        tasks, problems = read_tasks(_corpus_with(tmp, raw))
        assert "valid-1" in [t.id for t in tasks]
        hostile = [p for p in problems if p.file == "prior_auth/hostile.json"]
        assert hostile or len(tasks) == 2


def _scoring_task(query: str, expected: Any) -> Task:
    from endstate.corpus.hab_v2 import parse_task

    evals = [
        {"type": "jmespath", "query": query, "expected_value": expected, "points": 1},
        {"type": "jmespath", "query": query, "contains_value": "x", "points": 1},
        judge_check("{{ note }}"),
    ]
    task, _ = parse_task("prior_auth/t.json", "prior_auth", task_doc("t-1", evals))
    assert task is not None
    return task


@FUZZ
@given(query=QUERIES, expected=JSON_VALUES, state=JSON_VALUES)
def test_scoring_any_state_with_any_query_gives_a_record_that_can_be_written(
    query: str, expected: Any, state: Any
) -> None:
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        expected = 1
    try:
        task = _scoring_task(query, expected)
    except AssertionError:  # the query or value makes the task itself invalid: lint's job
        return
    document = {"note": state, "a": state, "b": [state, state]}
    record = score_task(task, document)
    json.loads(record.model_dump_json())  # writable, whatever the state held
    assert record.status in ("failed", "passed") and not record.passed  # a rubric is ungraded
    summary = summarize([record])
    assert math.isfinite(summary.mean_score)
    render_text(summary, _disclosure(record), "fuzz [/]")
    render_html(summary, _disclosure(record), "fuzz [/]", [record])


def _disclosure(record: Any) -> Any:
    from endstate.manifest import DisclosureItem
    from endstate.report.disclosure import Disclosure

    return Disclosure(
        items=[DisclosureItem(key="judge", title="Judge [/]", text=judge_text(None, [record]))]
    )


@FUZZ
@given(raw=st.one_of(st.binary(max_size=300), JSON_VALUES.map(_encode)))
def test_any_bytes_as_a_state_read_or_refused_with_the_file_named(
    raw: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "t-1.json"
    path.write_bytes(raw)
    try:
        state = read_state(path)
    except Exception as exc:
        assert type(exc).__name__ == "StateError" and str(path) in str(exc)
    else:
        assert isinstance(state, dict)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
        (b'{"a": ' + b"9" * 5000 + b"}", "4300 digits"),
        (b'{"a": 1, "a": 2}', "duplicate key 'a'"),
        (b'{"a": NaN}', "NaN is not a JSON number"),
        (b'{"a": 1e400}', "too large for a float"),
        (b'{"a": "\\ud800"}', "$.a: text holds a lone surrogate"),
        (b'{"\\udc80": 1}', "a key holds a lone surrogate"),
        (b"\xff\xfe", "not valid UTF-8"),
        (b'{"a": ' + b"[" * 70 + b"]" * 70 + b"}", "nested deeper than 64 levels"),
    ],
)
def test_the_strict_reading_names_each_hostile_class(raw: bytes, reason: str) -> None:
    with pytest.raises(JsonRefused) as refused:
        decode(raw, strict=True)
    assert reason in str(refused.value)


# -- the folder: every hostile class beside one valid state --------------------------

HOSTILE_STATES: dict[str, bytes | None] = {
    "deep": b"[" * 5000 + b"]" * 5000,
    "bigint": b'{"done": ' + b"9" * 5000 + b"}",
    "duplicate": b'{"done": true, "done": false}',
    "notobject": b"[1, 2]",
    "empty": b"",
    "binary": b"\xff\xfe\x00\x01",
    "truncated": b'{"done": tr',
    "markup": b'{"done": "[/]"}',
    "surrogate": b'{"done": true, "note": "\\ud800 [/]"}',
    "nan": b'{"done": NaN}',
    "huge-float": b'{"done": 1e400}',
    "dangling": None,
}


def test_a_folder_of_hostile_states_scores_the_valid_one_and_names_each_bad_one(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "prior_auth").mkdir(parents=True)
    checks = [jmespath_check("done"), jmespath_check("keys(@)[::0]", True, 1)]
    (corpus / "prior_auth" / "t.json").write_text(json.dumps(task_doc("t-1", checks[:1])))
    (corpus / "prior_auth" / "q.json").write_text(json.dumps(task_doc("q-1", checks[1:])))
    states = tmp_path / "states"
    states.mkdir()
    (states / "t-1.json").write_text('{"done": true}')
    (states / "q-1.json").write_text('{"a": 1}')
    for name, raw in HOSTILE_STATES.items():
        path = states / f"t-1.{name}.json"
        if raw is None:
            path.symlink_to(tmp_path / "nowhere")
        else:
            path.write_bytes(raw)
    os.mkfifo(states / "t-1.fifo.json")
    (states / "[red].json").write_text("{}")
    (
        states
        / "t-1.\udcff.json".encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    ).write_text('{"done": true}')
    records = tmp_path / "records.jsonl"
    proc = subprocess.run(
        [str(ENDSTATE), "score", "--corpus", str(corpus), "--states", str(states),
         "--out", str(records), "--report", str(tmp_path / "report.txt"),
         "--html", str(tmp_path / "report.html")],
        capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "200", "NO_COLOR": "1"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    rows = {
        (r["task_id"], r["attempt"]): r for r in map(json.loads, records.read_text().splitlines())
    }
    assert rows[("t-1", "1")]["status"] == "passed"
    assert rows[("q-1", "1")]["checks"][0]["detail"].startswith("error: ValueError")
    bad = [*HOSTILE_STATES, "fifo"]
    unmeasurable = {a for (t, a), r in rows.items() if r["status"] == "unmeasurable"}
    # Each of these is named on stderr with its file, once.
    for name in ("deep", "bigint", "duplicate", "notobject", "empty", "binary", "truncated",
                 "dangling", "fifo"):  # fmt: skip
        assert name in unmeasurable, name
        lines = [line for line in proc.stderr.splitlines() if f"t-1.{name}.json" in line]
        assert len(lines) == 1 and lines[0].startswith("unmeasurable "), (name, lines)
    # Legal JSON the benchmark would read is scored, not refused.
    for name in ("markup", "surrogate", "nan", "huge-float"):
        assert rows[("t-1", name)]["status"] in ("passed", "failed"), name
    assert rows[("t-1", "markup")]["checks"][0]["detail"] == "Mismatch: [/] != True"
    assert "warning " + str(states / "[red].json") in proc.stderr
    assert ("t-1", "\\udcff") in rows
    assert len(rows) == 2 + len(bad) + 1

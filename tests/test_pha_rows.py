"""Personal Health Arena rows (`pha-v1`): JSONL and CSV rows loaded as errand tasks, linted
with file, row and column named, kept from the agent by the firewall, pinned by the lock, and
scored leg by leg."""

from __future__ import annotations

import copy
import csv
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from endstate import firewall
from endstate.corpus import lock, pha
from endstate.corpus.legs import AnswerCheck, AnswerField, DeltaCheck, WriteExpectation
from endstate.corpus.loader import load_corpus, read_tasks
from endstate.corpus.model import Task
from endstate.corpus.problems import Problem, errors
from endstate.errors import CorpusError
from endstate.scoring.task_score import score_task
from test_cli import endstate

PHA = FIXTURES / "pha"
JSONL = PHA / "jsonl"
CSV = PHA / "csv"
COLUMNS = [
    "episode_id", "archetype", "legs", "patient_pid", "patient_name", "portal_username",
    "user_msg", "prompt_format", "instruction", "answer_fields", "expected_json",
    "write_check_json", "leg_scores",
]  # fmt: skip
GOLD_TEXT = [
    "7.2", "2024-03-14", "Metformin", "Lisinopril", "Dr. Ana Ruiz", "pp_appointments",
    "Riverside", "Downtown", "cancelled", "1204.5", "PAY-88213", "Albuterol", "pp_prescriptions",
    "P-1042", "Maria Lopez", "mlopez", "P-2077", "Sam Okafor", "sokafor", "0.05", "pha.",
]  # fmt: skip


def _first_row() -> dict[str, Any]:
    """The fixture's first row, every JSON column as a JSON value."""
    line = (JSONL / "patient_errands" / "rows.jsonl").read_text().splitlines()[0]
    row: dict[str, Any] = json.loads(line)
    return row


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _csv(rows: list[dict[str, Any]]) -> bytes:
    """Rows as CSV; a JSON column holding a string is taken as the cell's text, as is."""
    buf = io.StringIO(newline="")
    writer = csv.writer(buf)
    writer.writerow(COLUMNS)
    for r in rows:
        writer.writerow([v if isinstance(v, str) else json.dumps(v) for v in map(r.get, COLUMNS)])
    return buf.getvalue().encode()


def _loaded(root: Path) -> dict[str, Task]:
    tasks, problems = read_tasks(root)
    assert problems == []
    return {t.id: t for t in tasks}


# --- good rows ---------------------------------------------------------------------------


def test_the_same_rows_load_alike_from_jsonl_and_csv() -> None:
    from_jsonl, from_csv = _loaded(JSONL), _loaded(CSV)
    assert list(from_jsonl) == ["pha-0001", "pha-0002", "pha-0003"]
    assert from_jsonl["pha-0002"].source == "patient_errands/rows.jsonl"
    assert from_csv["pha-0002"].source == "patient_errands/rows.csv"
    for task_id, task in from_jsonl.items():
        assert task.model_copy(update={"source": "x"}) == from_csv[task_id].model_copy(
            update={"source": "x"}
        )
    tiers = {t.id: t.tier for t in from_jsonl.values()}
    assert tiers == {"pha-0001": "medium", "pha-0002": "easy", "pha-0003": "hard"}


def test_a_row_is_a_task_with_a_public_contract_and_legs_for_checks() -> None:
    task = _loaded(JSONL)["pha-0001"]
    row = _first_row()
    assert task.format == "pha-v1" and task.template == "pha.lab_meds_message"
    public = task.public.model_dump(exclude_defaults=True)
    assert public == {
        "id": "pha-0001",
        "family": "patient_errands",
        "instruction": row["instruction"],
        "scenario_label": "lab_meds_message",
        "answer_fields": (
            {"name": "a1c", "description": "Your most recent hemoglobin A1c result, in percent"},
            {"name": "next_visit", "description": "The date of your next scheduled visit"},
            {"name": "active_meds", "description": "Names of your active medications"},
        ),
    }
    assert task.public.website is None and task.public.start_path is None
    assert task.grading.checks == (
        AnswerCheck(leg="lab_a1c", field="a1c", kind="number", expected=7.2, tolerance=0.05),
        AnswerCheck(leg="next_visit", field="next_visit", kind="date", expected="2024-03-14"),
        AnswerCheck(
            leg="meds", field="active_meds", kind="set", expected=["Metformin", "Lisinopril"]
        ),
        DeltaCheck(
            leg="message_dr",
            expect=(
                WriteExpectation(
                    table="pp_sent_messages", op="added", match={"recipient": "Dr. Ana Ruiz"}
                ),
            ),
            forbidden_tables=("pp_appointments",),
        ),
    )
    assert task.grading.weight == 4
    assert {k: task.grading.extra[k] for k in pha.PATIENT_COLUMNS} == {
        "patient_pid": "P-1042",
        "patient_name": "Maria Lopez",
        "portal_username": "mlopez",
    }


def test_a_list_of_names_is_a_contract_without_descriptions() -> None:
    task = _loaded(CSV)["pha-0002"]
    assert task.public.answer_fields == (AnswerField(name="has_copay"), AnswerField(name="clinic"))
    copay, clinic, cancel = task.grading.checks
    assert isinstance(copay, AnswerCheck) and copay.expected is True
    assert isinstance(clinic, AnswerCheck) and clinic.choices == ("Downtown", "Riverside")
    assert isinstance(cancel, DeltaCheck) and cancel.expect[0].changes == {"status": "cancelled"}


@pytest.mark.parametrize("root", [JSONL, CSV], ids=["jsonl", "csv"])
def test_the_firewall_verifies_every_row_and_no_gold_reaches_the_projection(root: Path) -> None:
    tasks = _loaded(root).values()
    for task in tasks:
        assert firewall.verify(task).status == "verified"
        shown = firewall.project(task).canonical_bytes().decode()
        assert [gold for gold in GOLD_TEXT if gold in shown] == []
        assert task.public.instruction in json.loads(shown)["instruction"]
    # the check is not vacuous: the same values are on the grading side
    grading = "".join(t.grading.model_dump_json() for t in tasks)
    assert [gold for gold in GOLD_TEXT if gold not in grading] == []


# --- lint: one bad row, exactly one problem ----------------------------------------------


def _set(column: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(row: dict[str, Any]) -> None:
        row[column] = value

    return edit


def _drop(column: str, key: str) -> Callable[[dict[str, Any]], None]:
    def edit(row: dict[str, Any]) -> None:
        del row[column][key]

    return edit


def _rule(leg: str, **changes: Any) -> Callable[[dict[str, Any]], None]:
    def edit(row: dict[str, Any]) -> None:
        row["leg_scores"][leg].update(changes)

    return edit


def _instruction(old: str, new: str) -> Callable[[dict[str, Any]], None]:
    def edit(row: dict[str, Any]) -> None:
        row["instruction"] = row["instruction"].replace(old, new)

    return edit


def _prompt_format(suffix: str) -> Callable[[dict[str, Any]], None]:
    def edit(row: dict[str, Any]) -> None:
        row["prompt_format"] += suffix
        row["instruction"] += suffix  # as if the instruction were right: the format is wrong

    return edit


BAD_ROWS = [
    (
        "instruction mismatch",
        _instruction("last A1c", "last HbA1c"),
        "$[1].instruction",
        "instruction differs from prompt_format.format(user_msg=user_msg) at character 89: "
        "instruction has …'i! What was my last HbA1c, when is my ne', "
        "the format gives …'i! What was my last A1c, when is my next'",
    ),
    (
        "stray placeholder",
        _prompt_format(" Patient {patient_name}."),
        "$[1].prompt_format",
        "prompt_format has placeholder {patient_name}: only {user_msg} is filled "
        "(write {{ and }} for a literal brace)",
    ),
    (
        "placeholder inside a format spec",
        _prompt_format(" {user_msg:>{width}}"),
        "$[1].prompt_format",
        "prompt_format has placeholder {width}: only {user_msg} is filled "
        "(write {{ and }} for a literal brace)",
    ),
    (
        "a format spec",
        _prompt_format(" {user_msg!r:>2000000000}"),
        "$[1].prompt_format",
        "prompt_format has {user_msg!r:>2000000000}: only a plain {user_msg} is filled",
    ),
    (
        "a JSON example read as a placeholder",
        _prompt_format(' Reply like {"a1c": 7.0}.'),
        "$[1].prompt_format",
        'prompt_format has placeholder {"a1c"}: only {user_msg} is filled '
        "(write {{ and }} for a literal brace)",
    ),
    (
        "unbalanced brace",
        _prompt_format(" Reply as JSON}."),
        "$[1].prompt_format",
        "prompt_format cannot be formatted: Single '}' encountered in format string "
        "(the '}' at character 168: 'ields. Reply as JSON}.')",
    ),
    (
        "unclosed brace",
        _prompt_format(" Reply with {user_msg"),
        "$[1].prompt_format",
        "prompt_format cannot be formatted: expected '}' before end of string "
        "(the '{' at character 166: ' fields. Reply with {user_msg')",
    ),
    (
        "bad JSON cell",
        _set("leg_scores", '{"lab_a1c": {"field": "a1c",}}'),
        "$[1].leg_scores",
        "leg_scores: not valid JSON (line 1, column 29: Expecting property name enclosed in "
        "double quotes)",
    ),
    (
        "missing leg rule",
        _drop("leg_scores", "message_dr"),
        "$[1].leg_scores",
        "leg 'message_dr' has no rule",
    ),
    (
        "read field not in answer_fields",
        _drop("answer_fields", "a1c"),
        "$[1].leg_scores.lab_a1c.field",
        "field 'a1c' is not in answer_fields: the agent is never asked for it",
    ),
    (
        "write leg without a write check",
        _set("write_check_json", {}),
        "$[1].write_check_json",
        "write leg 'message_dr' has no write check",
    ),
    (
        "read field without a gold",
        _drop("expected_json", "next_visit"),
        "$[1].expected_json",
        "no gold for field 'next_visit' (leg 'next_visit')",
    ),
    (
        "gold that does not fit its kind",
        _rule("meds", kind="boolean"),
        "$[1].expected_json.active_meds",
        "a boolean's expected value must be true or false, not ['Metformin', 'Lisinopril']",
    ),
    (
        "unknown rule kind",
        _rule("meds", kind="list"),
        "$[1].leg_scores.meds.kind",
        "unknown kind 'list' (expected number, date, string, set, boolean, choice or write)",
    ),
    (
        "points in a rule",
        _rule("lab_a1c", points=5),
        "$[1].leg_scores.lab_a1c.points",
        "points is 5: every leg of an errand weighs 1",
    ),
    (
        "bad write expectation",
        _set(
            "write_check_json",
            {"message_dr": {"expect": [{"table": "pp_sent_messages", "op": "sent"}]}},
        ),
        "$[1].write_check_json.message_dr.expect[0].op",
        "Input should be 'added', 'updated', 'removed' or 'unchanged' (got 'sent')",
    ),
    (
        "unsafe id",
        _set("episode_id", "../pha-0001"),
        "$[1].episode_id",
        "unsafe task id '../pha-0001'",
    ),
    ("missing column", None, "$[1]", "missing column 'leg_scores'"),
]


def _bad_file(fmt: str, edit: Callable[[dict[str, Any]], None] | None) -> bytes:
    good, bad = _first_row(), _first_row()
    good["episode_id"] = "pha-good"
    bad["episode_id"] = "pha-bad"
    if edit is None:
        del bad["leg_scores"]
    else:
        edit(bad)
    return _jsonl([good, bad]) if fmt == "jsonl" else _csv([good, bad])


# A CSV row always has every column its header names: a missing column is the header's problem.
CASES = [(f, *c) for f in ("jsonl", "csv") for c in BAD_ROWS if f == "jsonl" or c[1] is not None]


@pytest.mark.parametrize(("fmt", "label", "edit", "path", "reason"), CASES, ids=[f"{c[1]}-{c[0]}" for c in CASES])  # fmt: skip
def test_a_bad_row_gives_exactly_its_problem_and_spares_the_others(
    fmt: str, label: str, edit: Callable[[dict[str, Any]], None] | None, path: str, reason: str
) -> None:
    name = f"patient_errands/rows.{fmt}"
    tasks, problems = pha.parse_file(name, "patient_errands", _bad_file(fmt, edit))
    assert [t.id for t in tasks] == ["pha-good"]
    assert [(p.file, p.path, p.severity) for p in problems] == [(name, path, "error")]
    if path.endswith("episode_id"):
        assert problems[0].reason.startswith(reason)
    else:
        assert problems[0].reason == reason


def test_what_no_leg_uses_is_a_warning_and_the_row_still_loads() -> None:
    row = _first_row()
    row["answer_fields"]["notes"] = "Anything else"
    row["leg_scores"]["old_leg"] = {"kind": "write"}
    row["expected_json"]["spare"] = 1
    row["legs"] = row["legs"][:2]
    row["leg_scores"] = {k: v for k, v in row["leg_scores"].items() if k not in ("meds",)}
    tasks, problems = pha.parse_file("rows.jsonl", "", _jsonl([row]))
    assert [t.id for t in tasks] == ["pha-0001"] and tasks[0].tier == "easy"
    assert {(p.path, p.reason) for p in problems if p.severity == "warning"} == {
        ("$[0].legs", "2 legs: an errand has 3–6"),
        ("$[0].leg_scores.message_dr", "rule for 'message_dr', which is not one of the legs: ignored"),
        ("$[0].leg_scores.old_leg", "rule for 'old_leg', which is not one of the legs: ignored"),
        ("$[0].answer_fields.active_meds", "answer field 'active_meds' is graded by no leg"),
        ("$[0].answer_fields.notes", "answer field 'notes' is graded by no leg"),
        ("$[0].expected_json.active_meds", "gold for 'active_meds' is used by no leg"),
        ("$[0].expected_json.spare", "gold for 'spare' is used by no leg"),
        ("$[0].write_check_json.message_dr", "write check for 'message_dr', not a write leg: ignored"),
    }  # fmt: skip
    assert errors(problems) == []


def test_file_level_problems_name_the_file_and_the_row() -> None:
    good = _jsonl([_first_row()])
    tasks, problems = pha.parse_file("a.jsonl", "", b'[1, 2]\n\n{"episode_id": NaN}\n' + good)
    assert [t.id for t in tasks] == ["pha-0001"]
    assert [p.line() for p in problems] == [
        "a.jsonl: $[0]: row is not an object",
        "a.jsonl: $[2]: row: NaN is not a JSON number",
    ]
    short = _csv([_first_row()]).replace(b",mlopez,", b",")
    assert [p.line() for p in pha.parse_file("b.csv", "", short)[1]] == [
        "b.csv: $[0]: row has 12 cells, the header names 13 columns"
    ]
    header = _csv([_first_row()]).replace(b"leg_scores", b"leg_score", 1)
    assert [p.line() for p in pha.parse_file("c.csv", "", header)[1]] == [
        "c.csv: $: header lacks column(s) leg_scores"
    ]
    assert [p.line() for p in pha.parse_file("d.csv", "", b"\xff\xfe")[1]] == [
        "d.csv: $: not valid UTF-8 text (byte 0)"
    ]
    moved = pha.parse_file("dme/e.jsonl", "dme", good)[1]
    assert [(p.reason, p.severity) for p in moved] == [
        ("family 'patient_errands' differs from its folder 'dme'", "warning")
    ]


# --- the loader, lint, lock and import ----------------------------------------------------


def test_a_duplicate_id_across_files_names_each_row(tmp_path: Path) -> None:
    root = tmp_path / "c"
    shutil.copytree(JSONL, root)
    shutil.copy(CSV / "patient_errands" / "rows.csv", root / "patient_errands" / "rows.csv")
    _, problems = read_tasks(root)
    lines = {p.line() for p in problems}
    assert "patient_errands/rows.jsonl: $[2].episode_id: duplicate task id 'pha-0003'" in lines
    assert "patient_errands/rows.csv: $[2].episode_id: duplicate task id 'pha-0003'" in lines
    with pytest.raises(CorpusError, match="duplicate task id"):
        load_corpus(root)


def test_a_pha_corpus_is_locked_verified_and_refused_once_edited(tmp_path: Path) -> None:
    dest = tmp_path / "corpora" / "pha"
    pinned = lock.vendor(JSONL, dest, "pha")
    assert set(pinned.files) == {"patient_errands/rows.jsonl"}
    assert lock.verify(dest).tree_hash == pinned.tree_hash
    assert len(load_corpus(dest).tasks) == 3
    rows = dest / "patient_errands" / "rows.jsonl"
    rows.write_bytes(rows.read_bytes().replace(b"7.2", b"7.3"))
    with pytest.raises(CorpusError, match=r"changed: patient_errands/rows\.jsonl"):
        lock.verify(dest)
    with pytest.raises(CorpusError, match="edited after import"):
        load_corpus(dest)


def test_the_command_line_imports_verifies_and_lints_rows(tmp_path: Path) -> None:
    imported = endstate("corpus", "import", CSV, "--name", "pha", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert endstate("corpus", "verify", tmp_path / "corpora" / "pha").stdout.startswith(
        "ok: 1 files"
    )
    bad = tmp_path / "bad" / "patient_errands"
    bad.mkdir(parents=True)
    (bad / "rows.jsonl").write_bytes(_bad_file("jsonl", _drop("leg_scores", "message_dr")))
    lint = endstate("corpus", "lint", bad.parent)
    assert lint.returncode == 1 and "Traceback" not in lint.stdout + lint.stderr
    assert (
        "patient_errands/rows.jsonl: $[1].leg_scores: leg 'message_dr' has no rule" in lint.stdout
    )
    assert "1 error(s), 0 warning(s)" in lint.stdout
    refused = endstate("corpus", "import", bad.parent, "--name", "bad", cwd=tmp_path)
    assert refused.returncode != 0 and "$[1].leg_scores" in refused.stderr


# --- scoring ------------------------------------------------------------------------------

SENT = {"pp_sent_messages": {"added": [{"id": 11, "recipient": "dr. ana ruiz"}], "updated": [], "removed": []}}  # fmt: skip


def _answer(**fields: Any) -> str:
    body = {"a1c": "7.25 %", "next_visit": "March 14, 2024", "active_meds": ["lisinopril", "METFORMIN"]}  # fmt: skip
    return "All done!\n```json\n" + json.dumps(body | fields) + "\n```"


@pytest.mark.parametrize(
    ("state", "message", "legs_right"),
    [
        ({"delta": SENT}, _answer(), {"lab_a1c", "next_visit", "meds", "message_dr"}),
        (
            {"delta": SENT},
            _answer(a1c=7.3, active_meds=["Metformin"]),
            {"next_visit", "message_dr"},
        ),
        ({"delta": {}}, _answer(), {"lab_a1c", "next_visit", "meds"}),
        (
            {
                "delta": SENT
                | {"pp_appointments": {"added": [], "updated": [], "removed": [{"id": 7}]}}
            },
            _answer(next_visit="14/03/2024"),
            {"lab_a1c", "meds"},
        ),
        ({"delta": SENT}, "I sent the message and the A1c is 7.2.", {"message_dr"}),
    ],
    ids=["all right", "two reads wrong", "no write", "forbidden table and bad date", "no JSON"],
)
def test_an_imported_errand_scores_legs_right_over_legs(
    state: dict[str, Any], message: str, legs_right: set[str]
) -> None:
    task = _loaded(CSV)["pha-0001"]
    record = score_task(task, state, final_message=message)
    assert {v.leg for v in record.checks if v.outcome == "pass"} == legs_right
    assert record.score == len(legs_right) / 4
    assert record.passed == (len(legs_right) == 4)
    assert record.template == "pha.lab_meds_message" and record.tier == "medium"
    assert all(v.detail for v in record.checks)


# --- hostile content ----------------------------------------------------------------------

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=20),
        st.sampled_from(["{", "}", "{x}", "{user_msg}", "[]", "{}", "null", "\ud800", "write"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
PLACES = st.sampled_from(
    [(c,) for c in COLUMNS]
    + [("leg_scores", "lab_a1c", k) for k in ("field", "kind", "tolerance", "choices", "x")]
    + [("leg_scores", "message_dr"), ("write_check_json", "message_dr", "expect")]
    + [("write_check_json", "message_dr", "expect", 0, k) for k in ("table", "op", "count")]
    + [("answer_fields", "a1c"), ("expected_json", "a1c"), ("legs", 0)]
)


def _put(row: dict[str, Any], place: tuple[Any, ...], value: Any) -> None:
    target: Any = row
    for step in place[:-1]:
        target = target[step]
    target[place[-1]] = value


@FUZZ
@given(place=PLACES, value=VALUES, fmt=st.sampled_from(["jsonl", "csv"]))
def test_any_value_anywhere_in_a_row_is_a_problem_or_a_task(
    place: tuple[Any, ...], value: Any, fmt: str
) -> None:
    def edit(row: dict[str, Any]) -> None:
        _put(row, place, copy.deepcopy(value))

    try:
        raw = _bad_file(fmt, edit)
    except UnicodeEncodeError:  # a lone surrogate cannot be written as CSV text at all
        return
    tasks, problems = pha.parse_file(f"r.{fmt}", "", raw)
    assert "pha-good" in [t.id for t in tasks]
    assert all(isinstance(p, Problem) and p.file == f"r.{fmt}" and p.reason for p in problems)
    assert all(p.path.startswith("$[1]") for p in errors(problems))
    assert len(tasks) == 2 or errors(problems), "a row was dropped without an error"
    for task in tasks:
        assert firewall.verify(task).status == "verified"


@FUZZ
@given(raw=st.binary(max_size=300), fmt=st.sampled_from(["jsonl", "csv"]))
def test_any_bytes_as_a_row_file_are_problems_never_a_crash(raw: bytes, fmt: str) -> None:
    tasks, problems = pha.parse_file(f"r.{fmt}", "", raw)
    assert tasks or problems
    assert all(p.reason and p.path.startswith("$") for p in problems)


# --- the dataset card's spellings, and tables the world lacks ---------------------------------


def _card_row(rules: Any) -> dict[str, Any]:
    return {**_first_row(), "leg_scores": rules}


def test_leg_scores_as_the_cards_list_of_rules_naming_their_leg_import_as_written() -> None:
    row = _first_row()
    listed = [{"leg": leg, **rule, "points": 1} for leg, rule in row["leg_scores"].items()]
    task, problems = pha.parse_row("rows.jsonl", 0, _card_row(listed))
    plain, _ = pha.parse_row("rows.jsonl", 0, row)
    assert problems == [] and task is not None and plain is not None
    assert task.grading.checks == plain.grading.checks


@pytest.mark.parametrize(
    ("rules", "path", "reason"),
    [
        (["x"], "$[0].leg_scores[0]", "a rule must be a JSON object (got 'x')"),
        ([{"kind": "write"}], "$[0].leg_scores[0]", "a rule in a list must name its leg"),
        (
            [{"leg": "message_dr", "kind": "write"}] * 2,
            "$[0].leg_scores[1].leg",
            "leg 'message_dr' has two rules",
        ),
    ],
)
def test_a_malformed_list_of_rules_is_refused_where_it_is_wrong(
    rules: list[Any], path: str, reason: str
) -> None:
    task, problems = pha.parse_row("rows.jsonl", 0, _card_row(rules))
    assert task is None
    assert any(p.path == path and p.reason.startswith(reason) for p in problems), problems


def test_a_write_on_a_table_the_world_lacks_is_refused_naming_the_table() -> None:
    row = _first_row()
    row["write_check_json"] = {
        "message_dr": {
            "expect": [{"table": "messages", "op": "added"}],
            "exclusive": True,
            "permitted": [{"table": "logins", "op": "added"}],
            "forbidden_tables": ["refill_requests", "pp_appointments"],
        }
    }
    task, problems = pha.parse_row("rows.jsonl", 0, row)
    assert task is None
    found = {p.reason.split(" is not")[0] for p in problems if p.severity == "error"}
    assert found == {"table 'messages'", "table 'refill_requests'"}
    assert all(p.path == "$[0].write_check_json.message_dr" for p in problems)
    assert "cannot be measured here, so the row is refused" in problems[0].reason


def test_the_world_tables_the_import_knows_are_the_schemas_tables() -> None:
    """The corpus layer names the world's tables without importing the suite: kept in step."""
    import sqlite3

    from endstate.corpus.pha_card import WORLD_TABLES
    from endstate.envs.schema import DDL
    from endstate.envs.systems.patient_portal.schema import DDL as PORTAL_DDL

    conn = sqlite3.connect(":memory:")
    conn.executescript(DDL + PORTAL_DDL)
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    assert {name for (name,) in rows if not name.startswith("sqlite_")} == WORLD_TABLES
    conn.close()

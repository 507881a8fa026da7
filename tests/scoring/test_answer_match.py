"""Comparing one answer field with its gold value, kind by kind, on tables of cases."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from endstate.scoring.answer_match import (
    LegVerdict,
    match_answer,
    missing_answer,
    normalize_text,
    read_date,
    read_number,
)

NAN = float("nan")
INF = float("inf")


def check(verdict: LegVerdict, correct: bool, score: float) -> None:
    assert verdict.correct is correct, verdict.reason
    assert verdict.score == pytest.approx(score), verdict.reason
    assert verdict.reason


# --- number ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "got", "tolerance", "relative", "correct"),
    [
        (7.2, 7.2, None, None, True),
        (7.2, 7.25, None, None, False),
        (7, 7.0, None, None, True),
        (0.3, 0.1 + 0.2, None, None, False),  # default tolerance is 0: exact
        (0.3, 0.1 + 0.2, 1e-9, None, True),
        # tolerance edges are inclusive, in decimal arithmetic
        (7.2, 7.25, 0.05, None, True),
        (7.2, 7.15, 0.05, None, True),
        (7.2, 7.2501, 0.05, None, False),
        (7.2, 7.1499, 0.05, None, False),
        (1.1, 1.0, 0.1, None, True),
        (100, 101, None, 0.01, True),
        (100, 99, None, 0.01, True),
        (100, 101.01, None, 0.01, False),
        (-100, -101, None, 0.01, True),
        (0, 0.001, None, 0.5, False),  # relative to zero is zero
        (100, 102, 2, 0.01, True),  # either band suffices
        (100, 102, 1, 0.02, True),
        (100, 103, 2, 0.02, False),
        # numbers given as text: units, thousands separators, currency
        (7.2, "7.2 mg/dL", None, None, True),
        (7.2, " 7.20 ", None, None, True),
        (1204.5, "1,204.50", None, None, True),
        (1204.5, "$1,204.50", None, None, True),
        (1204.5, "$1,204.50 USD", None, None, True),
        (-5, "-$5.00", None, None, True),
        (-5, "$-5", None, None, True),
        (1000, "1e3", None, None, True),
        (12.5, "12.5%", None, None, True),
        (98.6, "98.6 °F", None, None, True),
        (1204.5, "1.204,50", None, None, False),  # European notation is not read
        (12, "1,2", None, None, False),
        (120, "120/80", None, None, False),  # two numbers: unreadable
        (7.2, "about 7.2", None, None, False),
        (7.2, "7.2.1", None, None, False),
        (7.2, "", None, None, False),
        ("$1,204.50", 1204.5, None, None, True),  # the gold may be text too
        # NaN and infinities never match; booleans are not numbers
        (7.2, NAN, None, None, False),
        (7.2, INF, 1e308, None, False),
        (7.2, "NaN", None, None, False),
        (7.2, "inf", None, None, False),
        (1, True, None, None, False),
        (0, False, None, None, False),
        (7.2, [7.2], None, None, False),
        (7.2, {"value": 7.2}, None, None, False),
        (7.2, "1e999999999", None, None, False),  # out of range, not an exception
        (10**300, 10**300 + 1, None, None, False),  # exact, however large
        # the empty answer: right only when the gold says there is none
        ("none", "", None, None, True),
        ("none", "None", None, None, True),
        (None, "n/a.", None, None, False),
        (None, "none", None, None, True),
        ("", 0, None, None, False),
        (7.2, "none", None, None, False),
    ],
)
def test_number(
    expected: Any, got: Any, tolerance: float | None, relative: float | None, correct: bool
) -> None:
    verdict = match_answer("number", expected, got, tolerance=tolerance, relative=relative)
    check(verdict, correct, 1.0 if correct else 0.0)


@pytest.mark.parametrize(
    ("expected", "got", "kwargs", "reason"),
    [
        (7.2, 7.25, {"tolerance": 0.05}, "expected 7.2 ± 0.05, got 7.25"),
        (
            7.2,
            "7.3 mg/dL",
            {"tolerance": 0.05},
            "expected 7.2 ± 0.05, got '7.3 mg/dL' (read as 7.3), off by 0.1",
        ),
        (100, 101, {"relative": 0.01}, "expected 100 ± 1%, got 101"),
        (100, 101, {"tolerance": 2, "relative": 0.01}, "expected 100 ± 2 or 1%, got 101"),
        (7.2, None, {}, "no answer (expected 7.2)"),
        (7.2, True, {}, "expected 7.2, got true: a boolean is not a number"),
        (7.2, "120/80", {}, "expected 7.2, got '120/80': not a number"),
        (7.2, NAN, {}, "expected 7.2, got NaN: not a finite number"),
    ],
)
def test_number_reasons(expected: Any, got: Any, kwargs: dict[str, Any], reason: str) -> None:
    assert match_answer("number", expected, got, **kwargs).reason == reason


@pytest.mark.parametrize(
    ("expected", "kwargs"),
    [
        ("about seven", {}),
        (NAN, {}),
        (True, {}),
        ([7.2], {}),
        (7.2, {"tolerance": -0.1}),
        (7.2, {"relative": NAN}),
    ],
)
def test_an_unusable_number_gold_raises(expected: Any, kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        match_answer("number", expected, 7.2, **kwargs)


@pytest.mark.parametrize(
    ("text", "value"),
    [("7.2 mg/dL", "7.2"), ("1,204.50", "1204.50"), ("$1,204.50", "1204.50"), (".5", "0.5")],
)
def test_read_number(text: str, value: str) -> None:
    from decimal import Decimal

    assert read_number(text) == Decimal(value)


# --- date -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("got", "correct"),
    [
        ("2017-08-17", True),
        ("2017-8-17", True),
        ("2017-08-17T09:30:00", True),
        ("2017-08-17T23:30:00-05:00", True),  # the date as written: no zone conversion
        ("2017-08-17 09:30:00Z", True),
        ("2017-08-17T09:30:00.123Z", True),
        ("08/17/2017", True),
        ("8/17/2017", True),
        ("8/17/17", True),
        ("08/17/2017 9:30 AM", True),
        ("08/17/2017 21:30", True),
        ("08/17 00:00:00/2017", True),  # the patient portal's own format
        ("8/17 13:05:59/2017", True),
        ("August 17, 2017", True),
        ("august 17 2017", True),
        ("Aug 17, 2017", True),
        ("Aug. 17, 2017", True),
        ("AUG 17TH, 2017", True),
        ("Thursday, August 17, 2017", True),
        ("17 August 2017", True),
        ("17 Aug 2017", True),
        ("17th Aug. 2017", True),
        ("  08/17/2017  ", True),
        ("2017-08-18", False),
        ("08/18/2017", False),
        ("17/08/2017", False),  # slashes are month first; never guessed as day first
        ("2017/08/17", False),
        ("08-17-2017", False),
        ("08/17", False),
        ("Aug 17", False),
        ("Augustus 17, 2017", False),
        ("08/17 25:00:00/2017", False),
        ("tomorrow", False),
        ("", False),
        (20170817, False),
        (None, False),
        (["2017-08-17"], False),
    ],
)
def test_date(got: Any, correct: bool) -> None:
    check(match_answer("date", "2017-08-17", got), correct, 1.0 if correct else 0.0)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("3/4/55", date(2055, 3, 4)),  # two-digit years 00-68: 2000s
        ("3/4/68", date(2068, 3, 4)),
        ("3/4/69", date(1969, 3, 4)),  # 69-99: 1900s
        ("03/04/99", date(1999, 3, 4)),
        ("02/29/2024", date(2024, 2, 29)),
        ("Sept 1, 2020", date(2020, 9, 1)),
        ("1 May 2020", date(2020, 5, 1)),
        ("Ｍａｙ １, ２０２０", date(2020, 5, 1)),  # full-width, NFKC
    ],
)
def test_read_date(text: str, day: date) -> None:
    assert read_date(text) == day


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("02/29/2023", "no such date"),
        ("2017-02-30", "no such date"),
        ("17/08/2017", "no such date"),
        ("Foo 17, 2017", "'foo' is not a month"),
        ("soon", "not a readable date"),
        (None, "null is not a date"),
    ],
)
def test_an_unreadable_date_is_wrong_with_the_reason(text: Any, reason: str) -> None:
    assert reason in str(read_date(text))
    if text is not None:
        verdict = match_answer("date", "08/17 00:00:00/2017", text)
        assert not verdict.correct and reason in verdict.reason


def test_date_reasons() -> None:
    assert match_answer("date", "08/17 00:00:00/2017", "Aug 17, 2017").reason == (
        "expected 2017-08-17, got 'Aug 17, 2017' (read as 2017-08-17)"
    )
    assert match_answer("date", "2017-08-17", "2017-08-17").reason == (
        "expected 2017-08-17, got '2017-08-17'"
    )
    assert match_answer("date", "2017-08-17", None).reason == "no answer (expected 2017-08-17)"


@pytest.mark.parametrize(
    ("expected", "got", "correct"),
    [("none", "", True), ("", "None.", True), (None, "", True), ("none", "2017-08-17", False)],
)
def test_date_empty_answers(expected: Any, got: Any, correct: bool) -> None:
    check(match_answer("date", expected, got), correct, 1.0 if correct else 0.0)


@pytest.mark.parametrize("expected", ["13/01/2017", "whenever", 20170817, ["2017-08-17"]])
def test_an_unusable_date_gold_raises(expected: Any) -> None:
    with pytest.raises(ValueError):
        match_answer("date", expected, "2017-08-17")


# --- string ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "got", "correct"),
    [
        ("Dr. Ana Ruiz", "Dr. Ana Ruiz", True),
        ("Dr. Ana Ruiz", "dr. ana ruiz", True),
        ("Dr. Ana Ruiz", "  Dr.   Ana\tRuiz\n", True),
        ("Dr. Ana Ruiz", '"Dr. Ana Ruiz."', True),  # edge punctuation stripped
        ("Dr. Ana Ruiz", "Dr Ana Ruiz", False),  # inner punctuation is kept
        ("Dr. Ana Ruiz", "Dr. Ana Ruis", False),
        ("Walgreens #1234", "WALGREENS #1234", True),
        ("Walgreens #1234", "Walgreens 1234", False),
        ("Café", "cafe\u0301", True),  # composed and decomposed é
        ("Café", "Cafe", False),
        ("Straße", "STRASSE", True),  # casefold
        ("ＡＢＣ-123", "abc-123", True),  # full-width: NFKC
        ("ﬁle", "file", True),  # ligature: NFKC
        ("Ana\u00a0Ruiz", "ana ruiz", True),  # no-break space
        ("12345", 12345, True),  # a number answered for a code in text
        ("12345", 12345.0, False),
        ("12345", "012345", False),
        ("true", True, False),
        ("Dr. Ana Ruiz", ["Dr. Ana Ruiz"], False),
        ("Dr. Ana Ruiz", None, False),
        ("Dr. Ana Ruiz", "", False),
        # the empty answer
        ("", "", True),
        ("", "  ...  ", True),
        ("none", "None", True),
        ("none", "", True),
        (None, "none", True),
        ("none", None, False),  # null is no answer, never the answer "none"
        ("none", "nothing", False),
    ],
)
def test_string(expected: Any, got: Any, correct: bool) -> None:
    check(match_answer("string", expected, got), correct, 1.0 if correct else 0.0)


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        (" Dr.  Ana RUIZ. ", "dr. ana ruiz"),
        ("«Hello, world!»", "hello, world"),
        ("(555) 123-4567", "555) 123-4567"),
        ("...", ""),
        ("\u2003tab\tand\nnewline\u2003", "tab and newline"),
    ],
)
def test_normalize_text(text: str, normal: str) -> None:
    assert normalize_text(text) == normal


@pytest.mark.parametrize("expected", [True, ["a"], {"a": 1}])
def test_an_unusable_string_gold_raises(expected: Any) -> None:
    with pytest.raises(ValueError):
        match_answer("string", expected, "a")


# --- set ------------------------------------------------------------------------------------

ABC = ["Lisinopril", "Metformin", "Atorvastatin"]


@pytest.mark.parametrize(
    ("expected", "got", "correct", "score"),
    [
        (ABC, ["Lisinopril", "Metformin", "Atorvastatin"], True, 1.0),
        (ABC, ["atorvastatin", " METFORMIN ", "lisinopril."], True, 1.0),
        (ABC, ["Lisinopril", "Metformin"], False, 0.8),  # P 1, R 2/3
        (ABC, ["Lisinopril", "Metformin", "Aspirin"], False, 2 / 3),  # 2 of 3 right + 1 wrong
        (ABC, ["Lisinopril"], False, 0.5),
        (ABC, ["Lisinopril", "Aspirin", "Ibuprofen"], False, 1 / 3),
        (ABC, ["Aspirin"], False, 0.0),
        # listing everything does not win: F1, never recall alone
        (ABC, [*ABC, "Aspirin", "Ibuprofen", "Warfarin"], False, 2 / 3),
        (ABC, [*ABC, *[f"drug {i}" for i in range(97)]], False, 6 / 103),
        # duplicates count once
        (ABC, ["Lisinopril", "lisinopril", "LISINOPRIL", "Metformin", "Atorvastatin"], True, 1.0),
        (["Lisinopril", "lisinopril"], ["Lisinopril"], True, 1.0),
        # a single string is a one-item list
        (["Lisinopril"], "Lisinopril", True, 1.0),
        (ABC, "Lisinopril", False, 0.5),
        (ABC, "Lisinopril, Metformin, Atorvastatin", False, 0.0),  # one item, not three
        # empty answers: "none" is an answer
        ([], [], True, 1.0),
        ([], "none", True, 1.0),
        ([], "", True, 1.0),
        ([], ["None"], True, 1.0),
        ([], ["Aspirin"], False, 0.0),
        (ABC, [], False, 0.0),
        (ABC, "none", False, 0.0),
        (ABC, ["Lisinopril", "", "none", "Metformin", "Atorvastatin"], True, 1.0),
        # null is no answer, distinct from []
        ([], None, False, 0.0),
        (ABC, None, False, 0.0),
        # unreadable items count as wrong items
        (ABC, [*ABC, {"name": "Aspirin"}], False, 6 / 7),
        (ABC, [*ABC, None, True], False, 0.75),
        (["123", "456"], [123, 456], True, 1.0),
        # not a list at all
        (ABC, {"items": ABC}, False, 0.0),
        (ABC, 3, False, 0.0),
        (ABC, True, False, 0.0),
    ],
)
def test_set(expected: list[Any], got: Any, correct: bool, score: float) -> None:
    check(match_answer("set", expected, got), correct, score)


@pytest.mark.parametrize(
    ("item_kind", "expected", "got", "correct", "score"),
    [
        ("date", ["2017-08-17", "2017-09-01"], ["08/17/2017", "Sep 1, 2017"], True, 1.0),
        ("date", ["2017-08-17", "2017-09-01"], ["08/17 00:00:00/2017", "08/17/2017"], False, 2 / 3),
        ("date", ["2017-08-17"], ["08/17/2017", "someday"], False, 2 / 3),
        ("number", [1204.5, 7], ["$1,204.50", "7.0"], True, 1.0),
        ("number", [1204.5, 7], [1204.5, 7, 8], False, 0.8),
        ("number", [1], [True], False, 0.0),
    ],
)
def test_set_item_kinds(
    item_kind: Any, expected: list[Any], got: Any, correct: bool, score: float
) -> None:
    check(match_answer("set", expected, got, item_kind=item_kind), correct, score)


def test_set_reasons() -> None:
    verdict = match_answer("set", ABC, ["Lisinopril", "Metformin", "Aspirin"])
    assert verdict.reason == (
        "F1 0.667: 2 of 3 items expected, 1 extra; missing 'Atorvastatin'; extra 'Aspirin'"
    )
    assert match_answer("set", ABC, None).reason == "no answer (expected 3 items)"
    assert match_answer("set", ABC, []).reason.startswith("empty answer; expected 3 items")
    assert match_answer("set", [], []).reason == "expected none, got none"


@pytest.mark.parametrize(("expected", "kind"), [("a", "string"), (None, "string"), (["x"], "date")])
def test_an_unusable_set_gold_raises(expected: Any, kind: Any) -> None:
    with pytest.raises(ValueError):
        match_answer("set", expected, ["a"], item_kind=kind)


# --- boolean and choice ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "got", "correct"),
    [
        (True, True, True),
        (True, False, False),
        (False, False, True),
        (True, "yes", True),
        (True, "YES.", True),
        (True, " True ", True),
        (False, "no", True),
        (False, "No!", True),
        (False, "false", True),
        (True, "no", False),
        ("yes", True, True),  # the gold may be written as text too
        ("no", "false", True),
        (True, 1, False),  # anything else is wrong
        (False, 0, False),
        (True, "y", False),
        (True, "yes, I think so", False),
        (True, "", False),
        (True, None, False),
        (True, [True], False),
    ],
)
def test_boolean(expected: Any, got: Any, correct: bool) -> None:
    check(match_answer("boolean", expected, got), correct, 1.0 if correct else 0.0)


@pytest.mark.parametrize("expected", [1, "maybe", None, ""])
def test_an_unusable_boolean_gold_raises(expected: Any) -> None:
    with pytest.raises(ValueError):
        match_answer("boolean", expected, True)


OPTIONS = ["In person", "Video visit", "Phone call"]


@pytest.mark.parametrize(
    ("expected", "got", "choices", "correct"),
    [
        ("Video visit", "Video visit", OPTIONS, True),
        ("Video visit", "  VIDEO   visit. ", OPTIONS, True),
        ("Video visit", "In person", OPTIONS, False),
        ("Video visit", "video", OPTIONS, False),  # not one of the choices
        ("Video visit", "Video visit", None, True),  # the closed set is optional
        ("Video visit", "telehealth", None, False),
        ("Video visit", "", OPTIONS, False),
        ("Video visit", None, OPTIONS, False),
        ("Video visit", ["Video visit"], OPTIONS, False),
        ("2", 2, ["1", "2", "3"], True),
    ],
)
def test_choice(expected: str, got: Any, choices: list[str] | None, correct: bool) -> None:
    check(match_answer("choice", expected, got, choices=choices), correct, 1.0 if correct else 0.0)


def test_choice_reason_lists_the_choices() -> None:
    verdict = match_answer("choice", "Video visit", "video", choices=OPTIONS)
    assert "not one of 'In person', 'Video visit', 'Phone call'" in verdict.reason


@pytest.mark.parametrize(("expected", "choices"), [("Email", OPTIONS), (3, None)])
def test_an_unusable_choice_gold_raises(expected: Any, choices: list[str] | None) -> None:
    with pytest.raises(ValueError):
        match_answer("choice", expected, "Email", choices=choices)


def test_missing_answer_says_so() -> None:
    verdict = missing_answer("a1c")
    assert (verdict.correct, verdict.score) == (False, 0.0)
    assert verdict.reason == "no answer: field 'a1c' is missing from the answer"
    with_problem = missing_answer("a1c", "duplicate key 'a1c'")
    assert with_problem.reason.endswith("(duplicate key 'a1c')")


def test_an_unknown_kind_raises() -> None:
    with pytest.raises(ValueError):
        match_answer("color", "red", "red")  # type: ignore[arg-type]


# --- properties -----------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=20,
)
GOLDS: list[tuple[Any, Any, dict[str, Any]]] = [
    ("number", 7.2, {"tolerance": 0.05}),
    ("number", "$1,204.50", {"relative": 0.01}),
    ("number", "none", {}),
    ("date", "08/17 00:00:00/2017", {}),
    ("string", "Dr. Ana Ruiz", {}),
    ("string", "none", {}),
    ("set", ABC, {}),
    ("set", [], {}),
    ("set", ["2017-08-17"], {"item_kind": "date"}),
    ("set", [1, 2.5], {"item_kind": "number"}),
    ("boolean", True, {}),
    ("choice", "Video visit", {"choices": OPTIONS}),
]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(GOLDS), json_values)
def test_match_answer_never_raises_on_any_json_answer(
    gold: tuple[Any, Any, dict[str, Any]], got: Any
) -> None:
    kind, expected, kwargs = gold
    verdict = match_answer(kind, expected, got, **kwargs)
    assert 0.0 <= verdict.score <= 1.0
    assert verdict.correct is (verdict.score == 1.0)
    assert verdict.reason


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "B", "c", "d ", "E.", "f", 1, None]), max_size=6),
    st.lists(
        st.sampled_from(["A", "b", "C", "d", "e", "g", "", "none", 1, None, ["x"]]), max_size=8
    ),
    st.randoms(use_true_random=False),
)
def test_set_scores_do_not_depend_on_order(gold: list[Any], got: list[Any], rng: Any) -> None:
    gold = [item for item in gold if item is not None]  # a gold holds readable items only
    shuffled_gold, shuffled_got = gold[:], got[:]
    rng.shuffle(shuffled_gold)
    rng.shuffle(shuffled_got)
    first = match_answer("set", gold, got)
    second = match_answer("set", shuffled_gold, shuffled_got)
    assert (first.correct, first.score) == (second.correct, second.score)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=6), max_size=6), st.lists(st.text(max_size=6), max_size=6))
def test_set_f1_is_symmetric_between_gold_and_answer(left: list[str], right: list[str]) -> None:
    # F1 treats precision and recall alike, so swapping the sides keeps the score
    assert match_answer("set", left, right).score == pytest.approx(
        match_answer("set", right, left).score
    )

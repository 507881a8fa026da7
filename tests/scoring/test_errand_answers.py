"""Reading an errand's JSON answer from the agent's final message, rule by rule."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from endstate.scoring.answers import MAX_DEPTH, MAX_MESSAGE_BYTES, AnswerReading, extract_answer

FIELDS = ["a1c", "next_visit"]
FENCE = "```"


@pytest.mark.parametrize(
    ("message", "values", "source"),
    [
        (
            '{"a1c": 7.2, "next_visit": "2024-03-01"}',
            {"a1c": 7.2, "next_visit": "2024-03-01"},
            "message",
        ),
        ('  \n{"a1c": 7.2}\n  ', {"a1c": 7.2}, "message"),
        ('\ufeff{"a1c": 7.2}', {"a1c": 7.2}, "message"),
        # extra keys are ignored, never an error
        (
            '{"a1c": 7.2, "note": "fasting", "next_visit": null}',
            {"a1c": 7.2, "next_visit": None},
            "message",
        ),
        # the last ```json block wins over earlier blocks and over prose objects
        (
            f'Draft:\n{FENCE}json\n{{"a1c": 1}}\n{FENCE}\nFinal:\n{FENCE}json\n{{"a1c": 7.2}}\n{FENCE}\nDone {{"a1c": 9}}',
            {"a1c": 7.2},
            "fenced",
        ),
        (f'Here you go:\n{FENCE}JSON\n{{"a1c": "7.2 %"}}\n{FENCE}', {"a1c": "7.2 %"}, "fenced"),
        # else the last balanced top-level object that parses as JSON
        (
            'I found {"a1c": 6.1} then rechecked: {"a1c": 7.2, "next_visit": "03/01/2024"}.',
            {"a1c": 7.2, "next_visit": "03/01/2024"},
            "embedded",
        ),
        (
            'Answer: {"a1c": 7.2, "nested": {"x": "} {"}} and {braces in prose}',
            {"a1c": 7.2},
            "embedded",
        ),
        ('An unclosed { brace in prose, then {"a1c": 7.2}', {"a1c": 7.2}, "embedded"),
        ('He said "hi {" then {"a1c": 7.2}', {"a1c": 7.2}, "embedded"),
        ('Untagged fence:\n```\n{"a1c": 7.2}\n```', {"a1c": 7.2}, "embedded"),
        ('Inline ```json {"a1c": 7.2}```', {"a1c": 7.2}, "embedded"),
    ],
)
def test_the_answer_object_is_found(message: str, values: dict[str, Any], source: str) -> None:
    reading = extract_answer(message, FIELDS)
    assert reading.problem is None
    assert reading.values == values
    assert reading.missing == [f for f in FIELDS if f not in values]
    assert reading.source == source


@pytest.mark.parametrize(
    ("message", "problem"),
    [
        (None, "no final message"),
        ("", "empty"),
        ("   \n ", "empty"),
        ("The A1c is 7.2.", "no JSON object found"),
        # JSON only: YAML is refused with a reason saying so
        ("a1c: 7.2\nnext_visit: 2024-03-01", "JSON is required"),
        ("```yaml\na1c: 7.2\n```", "looks like YAML"),
        ("---\na1c: 7.2", "looks like YAML"),
        ("{a1c: 7.2, next_visit: 2024-03-01}", "looks like YAML"),
        # a top-level array, string, number, boolean, null is not an answer object
        ('[{"a1c": 7.2}]', "a JSON array"),
        ('"7.2"', "a JSON string"),
        ("7.2", "a JSON number"),
        ("true", "a JSON boolean"),
        ("null", "JSON null"),
        (f"{FENCE}json\n[1, 2]\n{FENCE}", "a JSON array"),
        # duplicate keys are ambiguous: refused, the key named
        ('{"a1c": 7.2, "a1c": 6.1}', "duplicate key 'a1c'"),
        (f'{FENCE}json\n{{"x": {{"k": 1, "k": 2}}}}\n{FENCE}', "duplicate key 'k'"),
        ('Answer: {"next_visit": "x", "next_visit": "y"}', "duplicate key 'next_visit'"),
        # NaN and Infinity are not JSON numbers
        ('{"a1c": NaN}', "NaN is not a JSON number"),
        ('{"a1c": -Infinity}', "-Infinity is not a JSON number"),
        # the last ```json block decides, even when it is broken
        (
            f'{FENCE}json\n{{"a1c": 7.2}}\n{FENCE}\n{FENCE}json\n{{"a1c": 7.2,}}\n{FENCE}',
            "last ```json block is not valid JSON",
        ),
        ('{"a1c": "\\ud800"}', "lone surrogate"),
        ('{"a1c": ' + "1" * 5000 + "}", "unreadable number"),
    ],
)
def test_an_unreadable_answer_says_why(message: str | None, problem: str) -> None:
    reading = extract_answer(message, FIELDS)
    assert reading.values == {}
    assert reading.missing == FIELDS
    assert reading.problem is not None and problem in reading.problem
    assert reading.source is None


def nested(depth: int) -> str:
    """An answer object nested `depth` levels deep (the object itself is level 1)."""
    return '{"a1c": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize(
    ("message", "ok"),
    [
        (nested(MAX_DEPTH), True),
        (nested(MAX_DEPTH + 1), False),
        (nested(5000), False),  # deeper than Python's decoder can go: refused, not raised
        ('{"a1c": ' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}", True),
        ('{"a1c": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}", False),
        ("Answer: " + nested(MAX_DEPTH + 1), False),
    ],
)
def test_nesting_deeper_than_64_is_refused(message: str, ok: bool) -> None:
    reading = extract_answer(message, FIELDS)
    assert (reading.problem is None) is ok
    if not ok:
        assert reading.problem is not None and f"deeper than {MAX_DEPTH}" in reading.problem


def test_a_message_over_one_megabyte_is_refused() -> None:
    padding = " " * (MAX_MESSAGE_BYTES - len('{"a1c": 7.2}'))
    assert extract_answer('{"a1c": 7.2}' + padding, FIELDS).values == {"a1c": 7.2}
    reading = extract_answer('{"a1c": 7.2}' + padding + " ", FIELDS)
    assert reading.values == {} and reading.problem is not None
    assert "over the 1,000,000-byte limit" in reading.problem
    # measured in UTF-8 bytes, not characters
    wide = '{"a1c": "' + "é" * (MAX_MESSAGE_BYTES // 2) + '"}'
    assert "limit" in (extract_answer(wide, FIELDS).problem or "")


@pytest.mark.parametrize(
    ("fields", "values", "missing"),
    [
        (["a1c"], {"a1c": 7.2}, []),
        (["a1c", "a1c"], {"a1c": 7.2}, []),  # a field named twice is asked once
        (["pharmacy", "a1c", "dose"], {"a1c": 7.2}, ["pharmacy", "dose"]),
        ([], {}, []),
        (["meds"], {"meds": []}, []),  # the empty answer is present, not missing
        (["note"], {"note": None}, []),  # null is present: the comparison calls it no answer
    ],
)
def test_only_named_fields_are_kept(
    fields: list[str], values: dict[str, Any], missing: list[str]
) -> None:
    message = '{"a1c": 7.2, "meds": [], "note": null, "other": {"x": 1}}'
    reading = extract_answer(message, fields)
    assert (reading.values, reading.missing, reading.problem) == (values, missing, None)


def test_the_reading_is_frozen() -> None:
    reading = extract_answer('{"a1c": 7.2}', FIELDS)
    assert isinstance(reading, AnswerReading)
    with pytest.raises(ValueError):
        reading.problem = "changed"  # type: ignore[misc]


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_extraction_never_raises_on_any_text(message: str) -> None:
    reading = extract_answer(message, FIELDS)
    assert set(reading.values) | set(reading.missing) == set(FIELDS)
    assert (reading.problem is None) or reading.values == {}


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=10), json_values, max_size=6), st.text(max_size=80))
def test_an_object_after_prose_is_read_back(obj: dict[str, Any], prose: str) -> None:
    prose = prose.replace("{", "(").replace("}", ")").replace("`", "'")
    fields = [*sorted(obj)[:3], "absent-field"]
    reading = extract_answer(f"{prose}\n{json.dumps(obj)}", fields)
    if "absent-field" in obj:
        return
    assert reading.problem is None
    assert reading.values == {k: obj[k] for k in fields if k in obj}
    assert reading.missing == ["absent-field"]

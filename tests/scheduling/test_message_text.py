"""The spellings a message's facts are accepted in, and the bounds that keep one value from
passing for another (March 1 is not March 14, 1:30 is not 11:30)."""

from __future__ import annotations

import pytest

from endstate.corpus.scheduling_text import (
    date_clause,
    not_saying_clause,
    time_clause,
    words_clause,
)
from endstate.jmes import compile_expression


def says(clause: str, body: str) -> bool:
    query = compile_expression(f"length(messages[?{clause}])")
    return bool(query.search({"messages": [{"body": body}]}) == 1)


@pytest.mark.parametrize(
    "body",
    [
        "See you on March 4 at 11:30.",
        "see you march 4th",
        "Appointment: 2026-03-04",
        "On 3/4/2026.",
        "(03/04) booked",
        "Wednesday, 4 March",
        "Booked for Mar 4",
    ],
)
def test_the_date_is_accepted_as_a_desk_writes_it(body: str) -> None:
    assert says(date_clause("2026-03-04"), body)


@pytest.mark.parametrize(
    "body", ["See you March 14.", "On 13/4.", "On 14 March", "2026-03-14", "Mar 40"]
)
def test_another_date_does_not_pass_for_it(body: str) -> None:
    assert not says(date_clause("2026-03-04"), body)


def test_the_time_in_either_clock_and_never_inside_another() -> None:
    clause = time_clause("13:30")
    assert says(clause, "at 1:30 pm") and says(clause, "at 13:30") and says(clause, "1:30pm")
    assert says(clause, "(1:30) tomorrow")
    assert not says(clause, "at 11:30 am") and not says(clause, "at 1:45 pm")


def test_names_in_any_case_and_what_a_message_must_not_say() -> None:
    assert says(words_clause("Okafor"), "with DR. OKAFOR") and says(
        words_clause("Okafor"), "okafor"
    )
    assert not says(words_clause("Okafor"), "with Dr. Lee")
    cancelled = not_saying_clause("cancelled")
    assert says(cancelled, "Your visit was Cancelled.") and says(cancelled, "CANCELLATION")
    assert not says(cancelled, "You are booked.")
    payment = not_saying_clause("payment_details")
    assert says(payment, "Reply with your Credit Card number") and says(payment, "the CVV")
    assert not says(payment, "Reply STOP to opt out.")

"""Values worked out once per object: the same object answers from the cache, never another."""

from __future__ import annotations

from endstate.held import once_per_object


def test_the_same_object_is_answered_once_and_an_equal_one_is_worked_out_again() -> None:
    calls: list[list[int]] = []

    def total(values: list[int]) -> int:
        calls.append(values)
        return sum(values)

    cached = once_per_object(total)
    first = [1, 2]
    assert cached(first) == 3 and cached(first) == 3
    assert len(calls) == 1
    equal = [1, 2]  # equal, not the same object: worked out on its own
    assert cached(equal) == 3 and len(calls) == 2


def test_a_full_cache_is_emptied_and_still_answers_right() -> None:
    cached = once_per_object(len, kept=2)
    held = [[0] * n for n in range(5)]
    assert [cached(x) for x in held] == [0, 1, 2, 3, 4]
    assert [cached(x) for x in held] == [0, 1, 2, 3, 4]


def test_an_object_gone_cannot_lend_its_id_to_another() -> None:
    cached = once_per_object(lambda values: tuple(values))
    for n in range(200):  # ids of freed lists are reused at once; the cache holds its keys
        assert cached([n]) == (n,)

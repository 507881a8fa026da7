"""How a caller who has a look-alike gives their name at the front desk: as it was heard, in a
form that fits both records (or neither exactly), never the one spelling that picks a record
and never the date of birth. So the desk has to ask, and the caller answers when asked."""

from __future__ import annotations

import random
from dataclasses import dataclass

from endstate.envs.systems.scheduling.directory import LookAlike, SchedPatient


@dataclass(frozen=True)
class Heard:
    said: str  # the caller as the instruction names them (it can open a sentence)
    search: str  # a find_patient query that lists both records of the pair
    facts: dict[str, str]  # what the caller tells when asked (the distinguishing facts)


def spelled(word: str) -> str:
    return f"{word}, spelled {'-'.join(word.upper())}"


def heard(pair: LookAlike, caller: SchedPatient, rng: random.Random) -> Heard:
    """The name as the caller gave it; `caller` is one of the pair."""
    title = "Ms." if pair.sex == "F" else "Mr."
    facts = {"date of birth": caller.dob, "phone number": caller.phone}
    a, b = pair.a, pair.b
    if pair.kind == "same_name":
        said = rng.choice([f"{a.first} {a.last}", f"A caller named {a.first} {a.last}"])
        return Heard(said, f"{a.first} {a.last}", facts)
    if pair.kind == "first_name":
        x, y = rng.sample([a.first, b.first], 2)
        said = rng.choice(
            [
                f"{title} {a.last}",
                f"{title} {a.last}, who did not spell a first name that sounded like {x} or {y},",
                f"A caller who gave the name {x} or {y} {a.last} on a bad line",
            ]
        )
        return Heard(said, a.last, facts | {"first name": spelled(caller.first)})
    x, y = rng.sample([a.last, b.last], 2)
    said = rng.choice(
        [
            f"A caller named {a.first}, whose surname sounded like {x} or {y} on a bad line,",
            f"{a.first} {x} or {y} (the caller did not spell it)",
            f"A caller named {a.first} (the surname was lost on a bad line)",
        ]
    )
    return Heard(said, a.first, facts | {"last name": spelled(caller.last)})

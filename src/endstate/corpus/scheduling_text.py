"""What a scheduling message must say and must not say, as JMESPath over its `body`.

JMESPath has no lower-casing and no patterns, so each fact becomes the set of spellings a
desk would write, each as written, in lower case and in capitals, bounded so that one
value is never found inside another ("March 1" must not pass a body saying "March 14",
"1:30" must not pass "11:30"). The accepted spellings (docs/scheduling-lab.md):

- date 2026-03-04: `2026-03-04`, `March 4`, `Mar 4`, `4 March`, `3/4`, `03/04`, each but
  the first followed by a space, comma, period, slash, semicolon, `)`, `st`/`nd`/`rd`/`th`
  or the end of the body, and the ones that open with a number preceded by a space, `(`
  or the start of the body;
- time 14:30: `14:30` or `2:30`, preceded by a space, `(` or the start of the body (am/pm
  or nothing after it, the 12-hour form also as `2:30pm`);
- provider: the provider's last name;
- location: the location's name, its distinguishing words (`East Clinic`) or its id.

Must not say: a contradicting status (for a booking confirmation: any form of "cancel")
and any request for payment details.
"""

from __future__ import annotations

from datetime import datetime

AFTER_DAY = (" ", ",", ".", "/", "st", "nd", "rd", "th", ")", ";")
BEFORE = (" ", "(")
NOT_SAYING: dict[str, tuple[str, ...]] = {
    "cancelled": ("cancel",),
    "payment_details": (
        "card number",
        "credit card",
        "debit card",
        "cvv",
        "cvc",
        "bank account",
        "routing number",
        "expiration date",
        "payment details",
    ),
}


def _q(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _cases(text: str) -> list[str]:
    return list(dict.fromkeys([text, text.lower(), text.upper()]))


def _any(terms: list[str]) -> str:
    return "(" + " || ".join(terms) + ")"


def _contains(text: str) -> list[str]:
    return [f"contains(body, {_q(t)})" for t in _cases(text)]


def _bounded(spelling: str, before: bool) -> list[str]:
    """`spelling` ending at a word's end; `before`: also starting at a word's start."""
    heads = [""] if not before else list(BEFORE)
    out: list[str] = []
    for head in heads:
        for t in _cases(head + spelling):
            out.append(f"ends_with(body, {_q(t)})")
            out += [f"contains(body, {_q(t + after)})" for after in AFTER_DAY]
    if before:
        out += [f"starts_with(body, {_q(t)})" for t in _cases(spelling)]
    return out


def date_clause(iso: str) -> str:
    day = datetime.fromisoformat(iso)
    terms = _contains(iso)
    for spelling in (f"{day:%B} {day.day}", f"{day:%b} {day.day}"):
        terms += _bounded(spelling, before=False)
    for spelling in (f"{day.day} {day:%B}", f"{day.month}/{day.day}", f"{day:%m}/{day:%d}"):
        terms += _bounded(spelling, before=True)
    return _any(list(dict.fromkeys(terms)))


def time_clause(hhmm: str) -> str:
    hour, minute = (int(x) for x in hhmm.split(":"))
    forms = [f"{hour:02d}:{minute:02d}", f"{(hour - 1) % 12 + 1}:{minute:02d}"]
    terms: list[str] = []
    for form in dict.fromkeys(forms):
        terms.append(f"starts_with(body, {_q(form)})")
        terms += [f"contains(body, {_q(before + form)})" for before in BEFORE]
    return _any(terms)


def words_clause(*spellings: str) -> str:
    terms: list[str] = []
    for s in spellings:
        terms += _contains(s)
    return _any(list(dict.fromkeys(terms)))


def not_saying_clause(name: str) -> str:
    """Any spelling of a forbidden content group (a KeyError names an unknown group)."""
    terms: list[str] = []
    for phrase in NOT_SAYING[name]:
        terms += [*_contains(phrase), f"contains(body, {_q(phrase.title())})"]
    return _any(list(dict.fromkeys(terms)))

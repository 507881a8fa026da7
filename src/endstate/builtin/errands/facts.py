"""What an errand's message must say: the facts a person would write, in the spellings a
person would use, and what it must never hold (a request for payment-card details).

A write leg checks these in the sent message's body (`contains` / `excludes`, normalised like
every other text), so a message to the right doctor that says nothing useful — "zzz unrelated
nonsense" — fails as surely as one to the wrong doctor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

# Texts no errand message may carry: asking for, or giving, a payment card's details.
CARD_DETAILS: tuple[str, ...] = ("card number", "cvv", "cvc", "security code")


def date_spellings(iso: str) -> list[str]:
    """A date as a person (or the portal) writes it: 03/02/2026, 3/2/2026, 2026-03-02,
    March 2, 2026 (with or without the comma), Mar 2, 2026."""
    d = date.fromisoformat(iso[:10])
    month, short = d.strftime("%B"), d.strftime("%b")
    out = [
        f"{d.month:02d}/{d.day:02d}/{d.year}",
        f"{d.month}/{d.day}/{d.year}",
        d.isoformat(),
        f"{month} {d.day}, {d.year}",
        f"{month} {d.day} {d.year}",
        f"{short} {d.day}, {d.year}",
    ]
    return list(dict.fromkeys(out))


def amount_spellings(value: float) -> list[str]:
    """Dollars as written, with or without the thousands comma: 1,204.50 or 1204.50 (a `$`
    before them is matched too, as the text is searched, not compared)."""
    return list(dict.fromkeys([f"{value:,.2f}", f"{value:.2f}"]))


@dataclass(frozen=True)
class MessageFacts:
    """The body a reference writes, and the facts its write leg requires of any body."""

    body: str
    facts: list[list[str]] = field(default_factory=list)  # each: its accepted spellings

    def contains(self) -> dict[str, list[list[str]]]:
        return {"body": self.facts}

    @staticmethod
    def excludes() -> dict[str, list[str]]:
        return {"body": list(CARD_DETAILS)}

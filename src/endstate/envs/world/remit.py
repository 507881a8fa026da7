"""Remittance money: what a payer allows and pays on a claim line and what the member owes.

Amounts are worked in whole cents so that every line balances exactly, as an 835 line does:
billed - paid is the sum of the line's adjustments (CO-45 for the part of the charge above the
fee schedule, PR-1/2/3 for the member's deductible, coinsurance and copay, or the one reason a
denied line was not paid).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from endstate.envs.world.catalog import CONTRACTUAL
from endstate.envs.world.model import Adjustment

FEE_SCHEDULE = 0.62  # the allowed amount as a share of the billed charge


@dataclass
class Share:
    """A claim's cost sharing, used up line by line: a deductible is met once, a copay is taken
    once per visit (on the first paid line), coinsurance applies to whatever allowed is left."""

    deductible: int = 0  # cents still to meet
    copay: int = 0  # cents
    coinsurance: float = 0.0

    def take(self, allowed: int) -> list[tuple[str, int]]:
        """The PR reason codes and amounts the member owes on one allowed amount."""
        deductible = min(self.deductible, allowed)
        copay = min(self.copay, allowed - deductible)
        self.deductible -= deductible
        self.copay = 0
        coinsurance = round((allowed - deductible - copay) * self.coinsurance)
        owed = [("1", deductible), ("3", copay), ("2", coinsurance)]
        return [(code, cents) for code, cents in owed if cents > 0]


def share_for(kind: str, rng: random.Random) -> Share:
    """The member's cost sharing by plan kind: Medicaid members owe nothing; Medicare Advantage
    has a specialist copay or 20% coinsurance; commercial plans may still have a deductible."""
    if kind == "medicaid_mco":
        return Share()
    options = ["copay", "coinsurance"] + (["deductible"] if kind == "commercial" else [])
    how = rng.choice(options)
    if how == "copay":
        return Share(copay=rng.choice([30, 40, 50]) * 100)
    if how == "coinsurance":
        return Share(coinsurance=rng.choice([0.2, 0.3]) if kind == "commercial" else 0.2)
    return Share(deductible=rng.randint(1, 15) * 10_000, coinsurance=0.2)


def _dollars(cents: int) -> float:
    return round(cents / 100, 2)


def paid_money(billed: int, share: Share) -> tuple[float, float, list[Adjustment]]:
    """Allowed, paid and adjustments of a line the payer paid (headline CO-45)."""
    allowed = round(billed * FEE_SCHEDULE)
    owed = share.take(allowed)
    paid = allowed - sum(cents for _, cents in owed)
    group, carc, _ = CONTRACTUAL
    adjustments = [Adjustment(group, carc, _dollars(billed - allowed))]
    adjustments += [Adjustment("PR", code, _dollars(cents)) for code, cents in owed]
    return _dollars(allowed), _dollars(paid), adjustments


def denied_money(billed: int, group: str, carc: str) -> tuple[float, float, list[Adjustment]]:
    """Allowed, paid and adjustments of a line adjusted in full for one reason. A deductible
    line (PR-1) is allowed and left wholly to the member, so the patient owes the charge; any
    other reason allows nothing."""
    allowed = billed if group == "PR" else 0
    return _dollars(allowed), 0.0, [Adjustment(group, carc, _dollars(billed))]


def patient_share(adjustments: list[Adjustment]) -> float:
    return _dollars(sum(round(a.amount * 100) for a in adjustments if a.group == "PR"))

"""Durable medical equipment: when an order may go to its supplier, and who may supply it.

- The coverage must be in force on the day the order goes out (coverage): an order on a plan
  that has ended is not sent; the patient's current coverage is verified first.
- A face-to-face encounter in the six months before the written order, and the written order
  before delivery. Medicare makes this a condition of payment only for the items on CMS's
  required list (power mobility devices, some orthoses and hospital beds: dmepos-f2f); the
  world's payers ask it of every order, a stricter policy of their own.
- A supplier furnishes only the product categories it is accredited for
  (dmepos-accreditation): an insulin pump does not come from a home-respiratory supplier. The
  category names here are the world's shorthand; CMS's list is finer (oxygen and CPAP are
  separate categories there).
- An item's coverage criterion on a measured result depends on the payer: a CPAP device
  qualifies at an apnea-hypopnea index of at least 15, or of 5 to 14 with documented
  symptoms (lcd-pap), so a result meant to fall short is below 5; home oxygen at a resting
  saturation of 88% or lower (ncd-oxygen). An insulin pump is judged on an HbA1c above 7.0%
  by the world's commercial and Medi-Cal plans: one of several qualifying findings in the
  Medicare policy (lcd-infusion-pumps) and in commercial guidelines written like it, reduced to
  the one. Medicare also asks for C-peptide or autoantibody evidence, so one result cannot
  decide a Medicare pump order, and a world orders insulin pumps on no Medicare plan.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date

from endstate.rules.plans import is_medicare

SOURCES = ("dmepos-f2f", "dmepos-accreditation", "lcd-pap", "ncd-oxygen", "lcd-infusion-pumps")
# A day count near six months (six calendar months run 181 to 184 days):
# `face_to_face_in_window` counts the months themselves.
FACE_TO_FACE_DAYS = 183
FACE_TO_FACE_MONTHS = 6

# HCPCS code -> the DMEPOS product category a supplier must be accredited for.
PRODUCT_CATEGORY: dict[str, str] = {
    "E0601": "respiratory",  # CPAP
    "E1390": "respiratory",  # oxygen concentrator
    "E0260": "hospital beds",
    "K0001": "manual wheelchairs",
    "L1833": "orthoses",
    "E0143": "walkers",
    "E0784": "infusion pumps",
}


@dataclass(frozen=True)
class Criterion:
    """A result that qualifies, and the range a result that falls short is drawn from."""

    marker: str
    at_least: float | None
    at_most: float | None
    short_of: tuple[float, float]  # (low, high) of a result that clearly does not qualify
    source: str
    strict: bool = False  # the bounds themselves do not qualify ("above 7.0%")

    def met(self, value: float) -> bool:
        if self.strict:
            return (self.at_least is None or value > self.at_least) and (
                self.at_most is None or value < self.at_most
            )
        return (self.at_least is None or value >= self.at_least) and (
            self.at_most is None or value <= self.at_most
        )


CRITERIA: dict[str, Criterion] = {
    # An AHI of 5-14 qualifies with symptoms, and every CPAP order documents them: a result
    # that falls short is below 5.
    "E0601": Criterion("apnea-hypopnea index", 15, None, (1.5, 4.5), "lcd-pap"),
    "E1390": Criterion("SpO2", None, 88, (90, 94), "ncd-oxygen"),
    "E0784": Criterion("HbA1c", 7.0, None, (6.2, 6.9), "lcd-infusion-pumps", strict=True),
}


def criterion_for(hcpcs: str, plan_kind: str) -> Criterion | None:
    """The criterion a payer of this kind reads for the item (None: none on a result)."""
    found = CRITERIA.get(hcpcs)
    if found is not None and hcpcs == "E0784" and is_medicare(plan_kind):
        return None  # one HbA1c does not decide Medicare's pump criteria: no such order
    return found


def orderable_on(hcpcs: str, plan_kind: str) -> bool:
    """Whether a world may draw an order of this item on a plan of this kind."""
    return not (hcpcs == "E0784" and is_medicare(plan_kind))


def supplier_fits(hcpcs: str, categories: frozenset[str]) -> bool:
    return PRODUCT_CATEGORY[hcpcs] in categories


def face_to_face_in_window(encounter: str, written_order: str) -> bool:
    """Whether an encounter (ISO date) falls in the six calendar months up to the written
    order: on or after the same day six months earlier (the month's last day where that
    month is shorter) and not after the order."""
    order_day = date.fromisoformat(written_order[:10])
    month = order_day.month - FACE_TO_FACE_MONTHS
    year = order_day.year + (month - 1) // 12
    month = (month - 1) % 12 + 1
    day = min(order_day.day, calendar.monthrange(year, month)[1])
    return date(year, month, day) <= date.fromisoformat(encounter[:10]) <= order_day

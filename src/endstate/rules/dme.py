"""Durable medical equipment: when an order may go to its supplier, and who may supply it.

- The coverage must be in force on the day the order goes out (coverage): an order on a plan
  that has ended is not sent; the patient's current coverage is verified first.
- A face-to-face encounter in the six months before the written order, and the written order
  before delivery (dmepos-f2f).
- A supplier furnishes only the product categories it is accredited for
  (dmepos-accreditation): an insulin pump does not come from a home-respiratory supplier.
- An item's coverage criterion on a measured result depends on the payer: a CPAP device
  qualifies at an apnea-hypopnea index of at least 15, or of 5 to 14 with documented
  symptoms (lcd-pap), so a result meant to fall short is below 5; home oxygen at a resting
  saturation of 88% or lower (ncd-oxygen); an insulin pump is judged on HbA1c only by
  commercial and Medi-Cal policies — Medicare reads C-peptide or autoantibodies
  (lcd-infusion-pumps), so a world orders insulin pumps on no Medicare plan.
"""

from __future__ import annotations

from dataclasses import dataclass

from endstate.rules.plans import is_medicare

SOURCES = ("dmepos-f2f", "dmepos-accreditation", "lcd-pap", "ncd-oxygen", "lcd-infusion-pumps")
FACE_TO_FACE_DAYS = 183  # "six months" before the written order, counted generously

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

    def met(self, value: float) -> bool:
        return (self.at_least is None or value >= self.at_least) and (
            self.at_most is None or value <= self.at_most
        )


CRITERIA: dict[str, Criterion] = {
    # An AHI of 5-14 qualifies with symptoms, and every CPAP order documents them: a result
    # that falls short is below 5.
    "E0601": Criterion("apnea-hypopnea index", 15, None, (1.5, 4.5), "lcd-pap"),
    "E1390": Criterion("SpO2", None, 88, (90, 94), "ncd-oxygen"),
    "E0784": Criterion("HbA1c", 7.0, None, (6.2, 6.9), "lcd-infusion-pumps"),
}


def criterion_for(hcpcs: str, plan_kind: str) -> Criterion | None:
    """The criterion a payer of this kind reads for the item (None: none on a result)."""
    found = CRITERIA.get(hcpcs)
    if found is not None and hcpcs == "E0784" and is_medicare(plan_kind):
        return None  # Medicare does not read HbA1c for a pump: such an order is not drawn
    return found


def orderable_on(hcpcs: str, plan_kind: str) -> bool:
    """Whether a world may draw an order of this item on a plan of this kind."""
    return not (hcpcs == "E0784" and is_medicare(plan_kind))


def supplier_fits(hcpcs: str, categories: frozenset[str]) -> bool:
    return PRODUCT_CATEGORY[hcpcs] in categories

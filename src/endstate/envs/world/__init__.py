"""The embedded suite's world: a fictional health system generated from one integer seed.

Everything here is a pure function of (seed, clock): the same pair gives a byte-identical JSON
document, so a world is named by its id and pinned by the sha256 of that document.
"""

from endstate.envs.world.generate import generate_world
from endstate.envs.world.model import (
    DEFAULT_CLOCK,
    DEFAULT_SEED,
    GENERATOR_VERSION,
    Adjustment,
    Coverage,
    Denial,
    DenialLine,
    DmeOrder,
    Document,
    Patient,
    PayerRule,
    Plan,
    PriorRequest,
    Provider,
    Referral,
    ReferralDx,
    Service,
    World,
    mdy,
    npi_check_digit,
    npi_valid,
)

__all__ = [
    "DEFAULT_CLOCK",
    "DEFAULT_SEED",
    "GENERATOR_VERSION",
    "Adjustment",
    "Coverage",
    "Denial",
    "DenialLine",
    "DmeOrder",
    "Document",
    "Patient",
    "PayerRule",
    "Plan",
    "PriorRequest",
    "Provider",
    "Referral",
    "ReferralDx",
    "Service",
    "World",
    "generate_world",
    "mdy",
    "npi_check_digit",
    "npi_valid",
]

"""Derive the outcome of any record of a world — referral, denied claim or DME order — from
the world's records and the payer rules alone (`endstate.rules`), never from a template."""

from __future__ import annotations

from collections.abc import Iterator

from endstate.builtin.audit.claim import derive_claim
from endstate.builtin.audit.order import derive_order
from endstate.builtin.audit.outcome import Outcome
from endstate.builtin.audit.referral import derive_referral
from endstate.envs.world import World

FAMILIES = ("prior_auth", "appeals_denials", "dme")


class UnknownRecord(LookupError):
    """A record id the world does not hold (a key or task naming a record of another world)."""


def family_of(world: World, record: str) -> str | None:
    """Which family a record of this world belongs to (None: the world has no such record)."""
    if any(r.id == record for r in world.referrals):
        return "prior_auth"
    if any(d.claim_id == record for d in world.denials):
        return "appeals_denials"
    if any(o.id == record for o in world.dme_orders):
        return "dme"
    return None


def derive(world: World, record: str) -> Outcome:
    """The outcome of one record (UnknownRecord when the world does not hold it)."""
    for referral in world.referrals:
        if referral.id == record:
            return derive_referral(world, referral)
    for denial in world.denials:
        if denial.claim_id == record:
            return derive_claim(world, denial)
    for order in world.dme_orders:
        if order.id == record:
            return derive_order(world, order)
    raise UnknownRecord(f"world {world.id} holds no referral, claim or order {record!r}")


def derive_all(world: World) -> Iterator[Outcome]:
    """Every record of the world, referrals, then claims, then orders."""
    for referral in world.referrals:
        yield derive_referral(world, referral)
    for denial in world.denials:
        yield derive_claim(world, denial)
    for order in world.dme_orders:
        yield derive_order(world, order)

"""Payer criteria that flip a determination: a DME item's criterion on a measured result, a
site-of-service rule on where a procedure is booked; each family has a template on one."""

from __future__ import annotations

from dataclasses import replace

import pytest

from endstate.builtin.generator import generate
from endstate.builtin.templates.common import WorldView
from endstate.builtin.templates.prior_auth.facts import services_need_auth
from endstate.envs.world import clinical, generate_world

SEEDS = (20260302, 11, 91731)


@pytest.mark.parametrize(
    ("hcpcs", "meets", "fails"), [("E0601", 15, 14), ("E1390", 88, 89), ("E0784", 7.0, 6.9)]
)
def test_a_dme_criterion_is_met_exactly_at_its_threshold(
    hcpcs: str, meets: float, fails: float
) -> None:
    criterion = clinical.dme_item(hcpcs).criterion
    assert criterion is not None
    assert criterion.met(meets) and not criterion.met(fails)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_report_in_the_chart_shows_the_result_the_criterion_reads(seed: int) -> None:
    world = generate_world(seed)
    short = 0
    for order in world.dme_orders:
        criterion = clinical.dme_item(order.hcpcs).criterion
        if criterion is None:
            continue
        assert order.result is not None
        short += not criterion.met(order.result)
        shown = f"{order.result}" if criterion.marker == "HbA1c" else f"{int(order.result)}"
        reports = [
            d
            for d in world.documents
            if d.related_id == order.id and d.kind in ("lab", "sleep_study")
        ]
        assert all(f"{criterion.marker} {shown}" in d.text for d in reports), order.id
    assert short == 3


def test_a_site_of_service_rule_requires_authorization_only_in_a_hospital() -> None:
    view = WorldView(generate_world())
    sited = {(r.plan_id, r.cpt) for r in view.world.payer_rules if r.sites}
    ref = next(
        r
        for r in view.world.referrals
        if any((view.plan_of(r.coverage_id).id, s.cpt) in sited for s in r.services)
    )
    i = next(
        i for i, s in enumerate(ref.services) if (view.plan_of(ref.coverage_id).id, s.cpt) in sited
    )

    def at(site: str) -> bool:
        services = list(ref.services)
        services[i] = replace(services[i], site=site)
        return services_need_auth(view, replace(ref, services=services))[i]

    assert at("outpatient_hospital") and not at("asc")


def test_every_family_has_a_template_that_a_criterion_or_a_second_coverage_decides() -> None:
    made = {g.data["template_id"] for seed in SEEDS for g in generate(seed, 63)}
    assert {
        "pa.medium.site-of-service",
        "pa.hard.coordination-of-benefits",
        "dn.hard.coverage-evidence",
        "dme.hard.criteria-not-met",
    } <= made

"""Every control a system declares for reference trajectories (envs/systems/*/controls.py) is on
its page under that name, found the way the replay agent finds it: a label renamed in a page
fails here, before any browser replay of the built-in corpus."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.controls import Controls
from endstate.envs.systems.ehr import controls as ehr
from endstate.envs.systems.fax import controls as fax
from endstate.envs.systems.payer_a import controls as payer_a
from endstate.envs.systems.payer_b import controls as payer_b

DECLARED = {"ehr": ehr.PAGES, "fax": fax.PAGES, "payer_a": payer_a.PAGES, "payer_b": payer_b.PAGES}


def _missing(page: Page, controls: Controls) -> list[str]:
    missing = [
        f"field {n!r}" for n in controls.fields if not page.get_by_label(n, exact=True).count()
    ]
    missing += [
        f"list box {n!r}"
        for n in controls.listboxes
        if not page.get_by_role("button", name=n).count()
    ]
    missing += [
        f"button {n!r}" for n in controls.buttons if not page.get_by_role("button", name=n).count()
    ]
    missing += [
        f"link {n!r}" for n in controls.links if not page.get_by_role("link", name=n).count()
    ]
    return missing


@pytest.mark.parametrize("system", sorted(DECLARED))
def test_every_declared_control_is_on_its_page(
    system: str, suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    referral = next(r for r in world.referrals if any(d.mrn == r.mrn for d in world.documents))
    ids = {"referral": referral.id, "claim": world.denials[0].claim_id, "mrn": referral.mrn}
    page.goto(episode.start_urls[system])
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(page.url))
    for path, controls in DECLARED[system].items():
        page.goto(origin + path.format(**ids))
        assert not _missing(page, controls), (system, path, _missing(page, controls))


def test_a_renamed_control_is_caught(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    page.goto(episode.start_urls["payer_a"])
    renamed = Controls(fields=("User name",), buttons=("Sign on",))
    assert _missing(page, renamed) == ["field 'User name'", "button 'Sign on'"]

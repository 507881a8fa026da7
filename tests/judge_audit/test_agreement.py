"""Agreement and Cohen's kappa against counts done by hand."""

from __future__ import annotations

import pytest

from endstate.judge_audit.agreement import agreement, cohen_kappa

# Ten items. Judge: P P P P P P F F F F. Person: P P P P P F F F F P.
# Alike on 8 (items 6 and 10 differ): p_o = 8/10 = 0.8.
# Judge says pass 6/10, the person 6/10 (five of the judge's passes and item 10):
# p_e = 0.6 * 0.6 + 0.4 * 0.4 = 0.36 + 0.16 = 0.52.
# kappa = (0.8 - 0.52) / (1 - 0.52) = 0.28 / 0.48 = 0.58333...
# Wilson 95% of 8/10 (z = 1.95996, z^2/n = 0.38415): centre (0.8 + 0.19207) / 1.38415 = 0.71674,
# half-width z * sqrt(0.8 * 0.2 / 10 + z^2 / 400) / 1.38415 = 0.22658: [0.4902, 0.9433].
JUDGE = list("PPPPPPFFFF")
PERSON = list("PPPPPFFFFP")
HAND_KAPPA = 0.28 / 0.48


def test_ten_items_eight_alike_match_the_hand_count() -> None:
    found = agreement(list(zip(JUDGE, PERSON, strict=True)))
    assert (found.n, found.agree, found.share) == (10, 8, 0.8)
    assert found.kappa == pytest.approx(HAND_KAPPA)
    assert found.interval == pytest.approx((0.4902, 0.9433), abs=5e-5)


def test_kappa_is_zero_when_agreement_is_what_chance_gives() -> None:
    # Judge P P F F, person P F P F: alike 2/4 = 0.5; chance 0.5 * 0.5 + 0.5 * 0.5 = 0.5.
    assert cohen_kappa(list(zip("PPFF", "PFPF", strict=True))) == pytest.approx(0.0)


def test_kappa_is_negative_for_systematic_disagreement() -> None:
    # Always opposite: p_o = 0, p_e = 0.5 -> kappa = -1.
    assert cohen_kappa(list(zip("PPFF", "FFPP", strict=True))) == pytest.approx(-1.0)


def test_kappa_is_undefined_when_both_give_one_label_only() -> None:
    found = agreement([("pass", "pass")] * 5)
    assert found.share == 1.0 and found.kappa is None
    assert agreement([]).share is None and agreement([]).interval is None

"""The payer, coverage and administrative rules, each against what its public source says."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil
from pathlib import Path

import pytest

import endstate.rules
from endstate.rules import authorization, cob, cost_sharing, coverage, denials, dme, remittance
from endstate.rules.cob import CobUndecided, CoverageFacts
from endstate.rules.sources import SOURCES, source
from endstate.rules.windows import windows_for

DAY = "2026-03-02"


# --- coverage: in force on its effective and termination dates, not a day outside ----------


def test_coverage_is_in_force_on_both_end_dates_and_not_a_day_outside() -> None:
    eff, term = "2026-01-01", "2026-03-31"
    assert coverage.in_force(eff, term, "2026-01-01")
    assert coverage.in_force(eff, term, "2026-03-31")
    assert not coverage.in_force(eff, term, "2026-04-01")
    assert not coverage.in_force(eff, term, "2025-12-31")
    assert coverage.standing(eff, term, "2025-12-31") == "not-yet-effective"
    assert coverage.standing(eff, term, "2026-04-01") == "terminated"
    assert coverage.in_force(eff, None, "2099-12-31")  # no end date: open-ended


def test_a_voided_enrollment_never_was_in_force() -> None:
    assert coverage.standing("2026-01-01", None, "2026-02-01", voided=True) == "never-in-force"
    assert not coverage.in_force("2026-01-01", None, "2026-02-01", voided=True)


def test_in_force_throughout_needs_both_ends() -> None:
    assert coverage.in_force_throughout("2026-01-01", "2026-06-30", "2026-02-01", "2026-06-30")
    assert not coverage.in_force_throughout("2026-01-01", "2026-06-30", "2026-02-01", "2026-07-01")


# --- coordination of benefits --------------------------------------------------------------


def _cov(
    id: str,
    kind: str = "commercial",
    relationship: cob.Relationship = "self",
    basis: cob.Basis = "employment",
    *,
    effective: str = "2020-01-01",
    termination: str | None = None,
    birthday: str = "",
    size: int | None = None,
) -> CoverageFacts:
    return CoverageFacts(id, kind, relationship, basis, effective, termination, birthday, size)


def _ids(coverages: list[CoverageFacts], day: str = DAY) -> list[str]:
    return [c.id for c in cob.order(coverages, day)]


MEDICARE = _cov("medicare", "medicare_advantage", basis="government")
MEDI_CAL = _cov("medi-cal", "medicaid_mco", basis="government")


@pytest.mark.parametrize("given", [["medi-cal", "job"], ["job", "medi-cal"]])
def test_medicaid_pays_after_a_commercial_plan(given: list[str]) -> None:
    plans = {"medi-cal": MEDI_CAL, "job": _cov("job", size=45)}
    assert _ids([plans[k] for k in given]) == ["job", "medi-cal"]


def test_medicaid_pays_after_medicare_too() -> None:
    assert _ids([MEDI_CAL, MEDICARE]) == ["medicare", "medi-cal"]


def test_medicare_pays_before_retiree_coverage() -> None:
    retiree = _cov("retiree", basis="retiree", size=5000)
    assert _ids([retiree, MEDICARE]) == ["medicare", "retiree"]


@pytest.mark.parametrize("relationship", ["self", "spouse"])
def test_current_employment_with_20_or_more_employees_pays_before_medicare(
    relationship: cob.Relationship,
) -> None:
    for size in (20, 45, 12000):
        job = _cov("job", relationship=relationship, size=size)
        assert _ids([MEDICARE, job]) == ["job", "medicare"], size


@pytest.mark.parametrize("relationship", ["self", "spouse"])
def test_current_employment_with_fewer_than_20_pays_after_medicare(
    relationship: cob.Relationship,
) -> None:
    for size in (1, 19):
        job = _cov("job", relationship=relationship, size=size)
        assert _ids([job, MEDICARE]) == ["medicare", "job"], size


def test_individual_coverage_pays_after_medicare() -> None:
    assert _ids([_cov("own", basis="individual"), MEDICARE]) == ["medicare", "own"]


def test_self_pays_before_spouse() -> None:
    mine = _cov("mine", effective="2024-01-01", size=50)
    spouse = _cov("spouse", relationship="spouse", effective="2010-01-01", size=5000)
    assert _ids([spouse, mine]) == ["mine", "spouse"]


def test_retiree_with_medicare_and_a_working_spouse_swaps_the_plans() -> None:
    """NAIC's Medicare exception: Medicare pays after the spouse's large-employer plan and
    before the retiree plan, so the dependent plan pays first of all three."""
    retiree = _cov("retiree", basis="retiree")
    spouse = _cov("spouse", relationship="spouse", size=800)
    for given in ([retiree, spouse, MEDICARE], [MEDICARE, retiree, spouse]):
        assert _ids(given) == ["spouse", "medicare", "retiree"]
    # without Medicare the ordinary rule holds: the person's own plan first
    assert _ids([spouse, retiree]) == ["retiree", "spouse"]


def test_birthday_rule_orders_a_child_by_the_parents_month_and_day() -> None:
    mother = _cov("mother", relationship="child", birthday="03-14", effective="2024-01-01")
    father = _cov("father", relationship="child", birthday="11-02", effective="2001-01-01")
    assert _ids([father, mother]) == ["mother", "father"]
    assert cob.primary([father, mother], DAY) == mother


def test_birthday_tie_goes_to_the_plan_that_covered_the_parent_longer() -> None:
    older = _cov("older", relationship="child", birthday="07-04", effective="2015-06-01")
    newer = _cov("newer", relationship="child", birthday="07-04", effective="2022-01-01")
    assert _ids([newer, older]) == ["older", "newer"]
    same = _cov("same", relationship="child", birthday="07-04", effective="2015-06-01")
    with pytest.raises(CobUndecided):
        cob.order([older, same], DAY)


def test_active_employment_pays_before_retiree_coverage() -> None:
    active = _cov("active", effective="2025-01-01", size=30)
    retired = _cov("retired", basis="retiree", effective="2000-01-01")
    assert _ids([retired, active]) == ["active", "retired"]


def test_otherwise_the_longer_coverage_pays_first() -> None:
    first_job = _cov("first", effective="2012-01-01", size=30)
    second_job = _cov("second", effective="2023-01-01", size=30)
    assert _ids([second_job, first_job]) == ["first", "second"]


def test_only_coverages_in_force_on_the_day_count() -> None:
    ended = _cov("ended", termination="2026-01-31", size=900)
    later = _cov("later", effective="2026-04-01", size=900)
    assert _ids([ended, later, MEDI_CAL]) == ["medi-cal"]
    assert _ids([ended, MEDI_CAL], "2026-01-31") == ["ended", "medi-cal"]
    assert cob.primary([ended, later], DAY) is None


def test_two_medicare_coverages_cannot_be_ordered() -> None:
    other = dataclasses.replace(MEDICARE, id="medicare-2")
    with pytest.raises(CobUndecided, match="cannot be ordered"):
        cob.order([MEDICARE, other], DAY)


# --- cost sharing ----------------------------------------------------------------------------


def test_medi_cal_has_no_member_share_and_no_balance_billing() -> None:
    assert not cost_sharing.cost_sharing_allowed("medicaid_mco")
    assert not cost_sharing.may_bill_member("medicaid_mco")
    for kind in ("commercial", "medicare_advantage", "delegated_group"):
        assert cost_sharing.cost_sharing_allowed(kind)
        assert cost_sharing.may_bill_member(kind)
    assert set(cost_sharing.MEMBER_SHARE_CARCS) == {"1", "2", "3"}


# --- windows per plan kind -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "appeal", "filing"),
    [
        ("medicare_advantage", 60, 365),
        ("delegated_group", 60, 365),
        ("medicaid_mco", 365, 180),
        ("commercial", 365, 90),
    ],
)
def test_windows_per_plan_kind(kind: str, appeal: int, filing: int) -> None:
    w = windows_for(kind)
    assert (w.appeal_days, w.timely_filing_days) == (appeal, filing)
    assert w.appeal_source in SOURCES and w.timely_filing_source in SOURCES


def test_knox_keene_windows_are_never_below_the_regulations_floor() -> None:
    for kind in ("medicaid_mco", "commercial"):
        w = windows_for(kind)
        assert w.appeal_days >= 365  # 28 CCR 1300.71.38(d)
        assert w.timely_filing_days >= 90  # 28 CCR 1300.71(b)(1), contracted providers


# --- authorization ---------------------------------------------------------------------------


def test_no_payer_reviews_plain_films_an_ecg_or_spirometry() -> None:
    for cpt in ("73562", "73565", "73030", "93000", "94010"):
        assert not authorization.may_require_auth(cpt), cpt
    for cpt in authorization.ADVANCED_IMAGING:
        assert authorization.may_require_auth(cpt), cpt
    assert not authorization.ADVANCED_IMAGING & set(authorization.NEVER_REVIEWED)


# --- remittance ------------------------------------------------------------------------------


def test_n115_is_a_medicare_remark_only() -> None:
    assert not remittance.remark_fits("N115", "medicaid_mco")
    assert not remittance.remark_fits("N115", "commercial")
    assert remittance.remark_fits("N115", "medicare_advantage")
    assert remittance.remark_fits("N115", "delegated_group")
    assert remittance.remark_fits("MA04", "medicaid_mco")  # the remark list serves every payer


def test_published_texts_are_quoted_whole_without_usage_notes() -> None:
    texts = {**remittance.CARC_TEXT, **remittance.RARC_TEXT}
    assert not [code for code, text in texts.items() if "Usage:" in text]
    assert remittance.CARC_TEXT["197"] == (
        "Precertification/authorization/notification/pre-treatment absent."
    )
    assert remittance.CARC_TEXT["96"].startswith("Non-covered charge(s). At least one Remark")
    assert "Group Code OA" in remittance.CARC_TEXT["18"]
    assert remittance.RARC_TEXT["N115"].endswith("request a copy of the LCD.")
    assert remittance.RARC_TEXT["MA04"].endswith("not reported or was illegible.")
    assert "Please submit a new claim" in remittance.RARC_TEXT["MA130"]


def test_every_reason_the_denial_map_uses_has_a_published_text() -> None:
    for action in denials.DENIAL_ACTIONS:
        assert action.carc in remittance.CARC_TEXT, action.code
    for carc in cost_sharing.MEMBER_SHARE_CARCS:
        assert carc in remittance.CARC_TEXT


# --- denials ---------------------------------------------------------------------------------


def test_contractual_reasons_are_never_billed_to_the_patient() -> None:
    for action in denials.DENIAL_ACTIONS:
        if action.group == "CO":
            assert "bill-patient" not in action.possible, action.code


def test_a_corrected_claim_runs_on_timely_filing_and_an_appeal_on_the_appeal_deadline() -> None:
    open_, passed, today = "2026-06-01", "2026-01-15", DAY
    assert denials.disposition("CO", "16", passed, open_, today) == "corrected-claim"
    assert denials.disposition("CO", "16", open_, passed, today) == denials.LAPSED
    assert denials.disposition("CO", "50", open_, passed, today) == "appeal"
    assert denials.disposition("CO", "50", passed, open_, today) == denials.LAPSED
    assert denials.disposition("PR", "1", passed, passed, today) == "bill-patient"
    assert not denials.decided_by_reason("CO", "22")


# --- DME -------------------------------------------------------------------------------------


def test_pap_criterion_is_an_ahi_of_15_and_a_short_result_is_below_5() -> None:
    c = dme.criterion_for("E0601", "commercial")
    assert c is not None and c.met(15) and not c.met(14.9)
    assert c.short_of[1] < 5  # 5-14 qualifies with symptoms, so "short" stays under 5


def test_oxygen_qualifies_at_a_resting_saturation_of_88_or_lower() -> None:
    c = dme.criterion_for("E1390", "medicare_advantage")
    assert c is not None and c.met(88) and c.met(85) and not c.met(89)
    assert not any(c.met(v) for v in c.short_of)


def test_insulin_pump_needs_an_hba1c_above_7_and_never_goes_on_medicare() -> None:
    c = dme.criterion_for("E0784", "commercial")
    assert c is not None and c.met(7.1) and not c.met(7.0)
    assert dme.criterion_for("E0784", "medicare_advantage") is None
    assert not dme.orderable_on("E0784", "delegated_group")
    assert dme.orderable_on("E0784", "medicaid_mco")


def test_every_item_has_a_product_category_and_a_supplier_must_hold_it() -> None:
    assert set(dme.CRITERIA) <= set(dme.PRODUCT_CATEGORY)
    assert not dme.supplier_fits("E0784", frozenset({"respiratory"}))
    assert dme.supplier_fits("E1390", frozenset({"respiratory"}))


@pytest.mark.parametrize(
    ("encounter", "order", "inside"),
    [
        ("2025-07-01", "2026-01-01", True),  # six months to the day: 184 days
        ("2025-06-30", "2026-01-01", False),
        ("2025-09-30", "2026-03-31", True),  # 182 days
        ("2025-09-29", "2026-03-31", False),  # 183 days, yet outside six months
        ("2025-02-28", "2025-08-31", True),  # the shorter month's last day
        ("2026-01-02", "2026-01-01", False),  # after the order
    ],
)
def test_face_to_face_window_is_six_calendar_months(
    encounter: str, order: str, inside: bool
) -> None:
    assert dme.face_to_face_in_window(encounter, order) is inside


# --- sources ---------------------------------------------------------------------------------


def _cited_keys() -> dict[str, set[str]]:
    """Every source key the package cites: SOURCE/SOURCES constants, and the string values of
    any `source` or `*_source` keyword or field in its modules, by module."""
    found: dict[str, set[str]] = {}
    for info in pkgutil.iter_modules(endstate.rules.__path__):
        module = importlib.import_module(f"endstate.rules.{info.name}")
        keys: set[str] = set()
        for name in ("SOURCE", "SOURCES"):
            value = getattr(module, name, None)
            if isinstance(value, str):
                keys.add(value)
            elif isinstance(value, tuple):
                keys.update(value)
        tree = ast.parse(Path(module.__file__ or "").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if (kw.arg or "").endswith("source") and isinstance(kw.value, ast.Constant):
                        keys.add(str(kw.value.value))
        found[info.name] = keys
    for crit in dme.CRITERIA.values():
        found["dme"].add(crit.source)
    for kind in ("commercial", "medicare_advantage", "medicaid_mco", "delegated_group"):
        w = windows_for(kind)
        found["windows"].update({w.appeal_source, w.timely_filing_source})
    return found


def test_every_source_cited_anywhere_exists() -> None:
    cited = _cited_keys()
    missing = {m: keys - set(SOURCES) for m, keys in cited.items() if keys - set(SOURCES)}
    assert not missing
    everything = set().union(*cited.values())
    for module in ("cob", "coverage", "cost_sharing", "windows", "authorization", "dme"):
        assert cited[module], f"rules.{module} cites no source"
    assert everything >= {"carc-list", "rarc-list", "naic-cob", "lcd-pap"}


def test_every_source_is_complete_and_keyed_by_its_own_key() -> None:
    for key, s in SOURCES.items():
        assert s.key == key and source(key) is s
        assert s.title and s.cite, key
        assert s.url.startswith(("https://", "http://")), key

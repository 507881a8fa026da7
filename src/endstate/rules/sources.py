"""The public sources the rules rest on, by key: what a reader checks a rule against."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    cite: str  # the section a reader looks at
    url: str


SOURCES: dict[str, Source] = {
    s.key: s
    for s in (
        Source(
            "x12-271-dates",
            "ASC X12 270/271 Health Care Eligibility Benefit Inquiry and Response",
            "DTP segment: eligibility begin (356) and end (357) dates; a plan pays for "
            "services on dates of service inside the eligibility period",
            "https://x12.org/codes/date-time-qualifier-codes",
        ),
        Source(
            "naic-cob",
            "NAIC Coordination of Benefits Model Regulation (MDL-120)",
            "Section 6, order of benefit determination rules: non-dependent before dependent; "
            "dependent child of parents married or living together: the birthday rule",
            "https://content.naic.org/sites/default/files/MDL-120.pdf",
        ),
        Source(
            "cms-who-pays-first",
            "CMS, Medicare & Other Health Benefits: Your Guide to Who Pays First (10969)",
            "Retiree coverage: Medicare pays first; group coverage through current "
            "employment of an employer with 20 or more employees pays first (age 65 and over)",
            "https://www.medicare.gov/publications/02179-medicare-coordination-benefits-payer.pdf",
        ),
        Source(
            "msp-working-aged",
            "42 CFR 411.172, Medicare benefits secondary to group health plan benefits "
            "(individuals age 65 or over)",
            "42 CFR 411.172",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-411/subpart-E",
        ),
        Source(
            "medicaid-last-resort",
            "42 CFR 433.139, Payment of claims (third party liability); Social Security Act "
            "1902(a)(25)",
            "42 CFR 433.139: Medicaid is the payer of last resort",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-C/part-433/subpart-D",
        ),
        Source(
            "medicaid-payment-in-full",
            "42 CFR 447.15, Acceptance of State payment as payment in full",
            "42 CFR 447.15",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-C/part-447/subpart-A",
        ),
        Source(
            "medi-cal-balance-billing",
            "California Welfare and Institutions Code section 14019.4",
            "W&I Code 14019.4: a provider may not seek payment from a Medi-Cal beneficiary for "
            "covered services",
            "https://leginfo.legislature.ca.gov/faces/codes_displaySection.xhtml"
            "?lawCode=WIC&sectionNum=14019.4",
        ),
        Source(
            "ma-reconsideration",
            "CMS, Reconsideration by the Medicare Advantage (Part C) Health Plan; 42 CFR 422.582",
            "a reconsideration must be filed within 60 calendar days from the date of the "
            "notice of the organization determination",
            "https://www.cms.gov/medicare/appeals-grievances/managed-care/"
            "reconsideration-medicare-advantage-part-c-health-plan",
        ),
        Source(
            "medicare-timely-filing",
            "42 CFR 424.44, Time limits for filing claims",
            "42 CFR 424.44(a): no later than 12 months (1 calendar year) after the date of service",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-424/subpart-C",
        ),
        Source(
            "ca-provider-disputes",
            "California Code of Regulations, title 28, section 1300.71.38 (Knox-Keene plans, "
            "Medi-Cal managed care included)",
            "28 CCR 1300.71.38(d)(2): a plan may not set a time limit for a provider dispute "
            "of less than 365 days from the plan's action",
            "https://www.dmhc.ca.gov/LicensingReporting/StatutesRegulations.aspx",
        ),
        Source(
            "ca-timely-filing",
            "California Code of Regulations, title 28, section 1300.71(b)(1)",
            "28 CCR 1300.71(b)(1): a plan may not require claims sooner than 90 days after "
            "the date of service (contracted providers) or 180 days (non-contracted)",
            "https://www.dmhc.ca.gov/LicensingReporting/StatutesRegulations.aspx",
        ),
        Source(
            "erisa-appeals",
            "29 CFR 2560.503-1, Claims procedure (group health plans)",
            "29 CFR 2560.503-1(h)(3)(i): at least 180 days after an adverse benefit "
            "determination to appeal",
            "https://www.ecfr.gov/current/title-29/subtitle-B/chapter-XXV/subchapter-F/"
            "part-2560/section-2560.503-1",
        ),
        Source(
            "carc-list",
            "X12 Claim Adjustment Reason Codes (code list maintained by X12)",
            "each code's published description",
            "https://x12.org/codes/claim-adjustment-reason-codes",
        ),
        Source(
            "rarc-list",
            "X12 Remittance Advice Remark Codes (maintained by CMS)",
            "each remark's published text",
            "https://x12.org/codes/remittance-advice-remark-codes",
        ),
        Source(
            "lcd-definition",
            "42 CFR 426.110 / SSA 1869(f)(2)(B): a local coverage determination is a Medicare "
            "administrative contractor's decision",
            "an LCD governs Medicare claims only; RARC N115 cites one",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-426",
        ),
        Source(
            "dmepos-f2f",
            "42 CFR 410.38, Durable medical equipment: conditions for payment",
            "410.38(d): a face-to-face encounter in the 6 months before the written order, "
            "and the written order before delivery, for items on the required list",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-410/"
            "subpart-B/section-410.38",
        ),
        Source(
            "dmepos-accreditation",
            "42 CFR 424.57(c) and CMS DMEPOS supplier standards; DMEPOS product categories "
            "of accreditation",
            "a supplier is accredited for the product categories it furnishes",
            "https://www.cms.gov/medicare/provider-enrollment-and-certification/"
            "medicareprovidersupenroll/dmeposaccreditation",
        ),
        Source(
            "lcd-pap",
            "LCD L33718, Positive Airway Pressure (PAP) Devices for the Treatment of "
            "Obstructive Sleep Apnea",
            "AHI of at least 15, or 5 to 14 with documented symptoms (excessive daytime "
            "sleepiness among them)",
            "https://www.cms.gov/medicare-coverage-database/view/lcd.aspx?lcdid=33718",
        ),
        Source(
            "ncd-oxygen",
            "NCD 240.2, Home Use of Oxygen; LCD L33797 Oxygen and Oxygen Equipment",
            "Group I: arterial PO2 at or below 55 mm Hg or saturation at or below 88% at rest "
            "on room air",
            "https://www.cms.gov/medicare-coverage-database/view/lcd.aspx?lcdid=33797",
        ),
        Source(
            "lcd-infusion-pumps",
            "LCD L33794, External Infusion Pumps (insulin pumps)",
            "Medicare reads C-peptide or beta-cell autoantibodies and the glucose regimen, "
            "not an HbA1c threshold",
            "https://www.cms.gov/medicare-coverage-database/view/lcd.aspx?lcdid=33794",
        ),
        Source(
            "opd-prior-auth",
            "42 CFR 419.83, Prior authorization for hospital outpatient department services; "
            "CMS Prior Authorization and Pre-Claim Review Initiatives",
            "the services Medicare itself reviews before they are furnished: none of them a "
            "plain radiograph or an electrocardiogram",
            "https://www.cms.gov/research-statistics-data-and-systems/monitoring-programs/"
            "medicare-ffs-compliance-programs/prior-authorization-and-pre-claim-review-"
            "initiatives",
        ),
        Source(
            "advanced-imaging-auth",
            "Radiology benefit management programs (e.g. UnitedHealthcare Advanced Outpatient "
            "Imaging Procedures notification/prior authorization)",
            "MRI, CT, PET and nuclear cardiology need authorization; plain radiographs do not",
            "https://www.uhcprovider.com/en/prior-auth-advance-notification/"
            "radiology-notification-prior-auth.html",
        ),
    )
}


def source(key: str) -> Source:
    return SOURCES[key]

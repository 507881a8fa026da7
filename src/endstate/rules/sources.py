"""The public sources the rules rest on, by key: what a reader checks a rule against.

`cite` says what the source says that the rule reads, in a few words of our own, and where a
rule departs from its source (a minimum the world uses as the exact number, a simplification),
the rule's module says so.
"""

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
            "ASC X12 005010X279A1 Health Care Eligibility Benefit Inquiry and Response "
            "(270/271); element 374, Date/Time Qualifier",
            "DTP segment qualifiers 356 (Eligibility Begin) and 357 (Eligibility End); the end "
            "date is read as the last day covered (some enrollment systems record the first "
            "uncovered day instead: the world never does)",
            "https://www.stedi.com/edi/x12-005010/element/374",
        ),
        Source(
            "naic-cob",
            "NAIC Coordination of Benefits Model Regulation (MDL-120)",
            "Section 6, order of benefit determination: the first rule that applies decides: "
            "non-dependent before dependent (reversed when Medicare pays after the dependent "
            "plan and before the other); a child of parents married or living together: the "
            "parent whose birthday (month and day) falls earlier, on the same birthday the "
            "plan that has covered a parent longer; active employee before retired or laid-off; "
            "longer coverage before shorter",
            "https://content.naic.org/sites/default/files/MDL-120.pdf",
        ),
        Source(
            "cms-who-pays-first",
            "Medicare.gov, Which insurance pays first (How Medicare works with other "
            "insurance); CMS booklet 02179, Medicare & Other Health Benefits: Your Guide to "
            "Who Pays First",
            "retiree coverage: Medicare pays first; 65 or older with group coverage from your "
            "own or a spouse's current employment: the group plan pays first if the employer "
            "has 20 or more employees, Medicare first if fewer; Medicaid never pays first",
            "https://www.medicare.gov/health-drug-plans/coordination/who-pays-first",
        ),
        Source(
            "msp-working-aged",
            "42 CFR 411.172, Medicare benefits secondary to GHP benefits (part 411 subpart G: "
            "aged beneficiaries and spouses who are also covered under group health plans)",
            "411.170(a): group health plans of employers of 20 or more employees; 411.172: "
            "Medicare is secondary for a beneficiary entitled by age who is covered by virtue "
            "of their own or a spouse's current employment status",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-411/"
            "subpart-G/section-411.172",
        ),
        Source(
            "medicaid-last-resort",
            "42 CFR 433.139, Payment of claims (third party liability); Social Security Act "
            "1902(a)(25)",
            "433.139(b): where another payer's liability is established when the claim is "
            "filed, the Medicaid agency rejects it back to the provider and pays only what is "
            "left: Medicaid is the payer of last resort",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-C/part-433/"
            "subpart-D/section-433.139",
        ),
        Source(
            "medicaid-payment-in-full",
            "42 CFR 447.15, Acceptance of State payment as payment in full",
            "the Medicaid payment plus any cost sharing the State plan requires is payment in "
            "full: the provider may not bill the beneficiary for more",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-C/part-447/"
            "subpart-A/section-447.15",
        ),
        Source(
            "medi-cal-balance-billing",
            "California Welfare and Institutions Code section 14019.4",
            "14019.4(a): a provider may not seek payment of the balance of its charge for a "
            "covered service from a Medi-Cal beneficiary (only from a third party with a "
            "contractual or legal entitlement)",
            "https://leginfo.legislature.ca.gov/faces/codes_displaySection.xhtml"
            "?lawCode=WIC&sectionNum=14019.4",
        ),
        Source(
            "medi-cal-copayments",
            "California Welfare and Institutions Code section 14134, Copayments",
            "the copayments Medi-Cal may charge are nominal: $1 a visit for certain services "
            "and $5 for non-emergency use of an emergency department, which the provider may "
            "collect or waive; none on emergency or family-planning services",
            "https://leginfo.legislature.ca.gov/faces/codes_displaySection.xhtml"
            "?lawCode=WIC&sectionNum=14134",
        ),
        Source(
            "ma-reconsideration",
            "CMS, Reconsideration by the Medicare Advantage (Part C) Health Plan; 42 CFR 422.582",
            "a reconsideration must be filed with the plan within 60 calendar days from the "
            "date of the notice of the organization determination",
            "https://www.cms.gov/medicare/appeals-grievances/managed-care/"
            "reconsideration-medicare-advantage-part-c-health-plan",
        ),
        Source(
            "medicare-timely-filing",
            "42 CFR 424.44, Time limits for filing claims",
            "424.44(a): no later than 12 months (1 calendar year) after the date of service",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-424/"
            "subpart-C/section-424.44",
        ),
        Source(
            "ca-provider-disputes",
            "California Code of Regulations, title 28, section 1300.71.38 (Knox-Keene plans, "
            "Medi-Cal managed care included)",
            "1300.71.38(d): a plan may not set a deadline for a provider dispute of less than "
            "365 days from the plan's action (or, on inaction, from when the time to contest or "
            "deny the claim ran out)",
            "https://www.dmhc.ca.gov/LicensingReporting/StatutesRegulations.aspx",
        ),
        Source(
            "ca-timely-filing",
            "California Code of Regulations, title 28, section 1300.71(b)",
            "1300.71(b)(1): a plan may not require claims sooner than 90 days after the date of "
            "service (contracted providers) or 180 days (non-contracted); (b)(4): a claim "
            "denied as late is adjudicated after all if a provider dispute shows good cause",
            "https://www.dmhc.ca.gov/LicensingReporting/StatutesRegulations.aspx",
        ),
        Source(
            "erisa-appeals",
            "29 CFR 2560.503-1, Claims procedure (group health plans)",
            "29 CFR 2560.503-1(h)(3)(i): at least 180 days after an adverse benefit "
            "determination to appeal (a claimant's appeal, not a provider's dispute)",
            "https://www.ecfr.gov/current/title-29/subtitle-B/chapter-XXV/subchapter-F/"
            "part-2560/section-2560.503-1",
        ),
        Source(
            "carc-list",
            "X12 Claim Adjustment Reason Codes (code list maintained by X12)",
            "each code's published description, quoted without its 'Usage:' note",
            "https://x12.org/codes/claim-adjustment-reason-codes",
        ),
        Source(
            "claim-adjustment-group-codes",
            "Claim Adjustment Group Codes (X12 element 1033), as explained with the CARC list",
            "CO, contractual obligations: generally a write-off for the provider, not billed "
            "to the patient; PR, patient responsibility: billed to the patient or insured",
            "http://www.wpc-edi.com/custom_html/carc_more.htm",
        ),
        Source(
            "rarc-list",
            "X12 Remittance Advice Remark Codes (maintained by CMS, published by X12)",
            "each remark's published text; every payer uses the same list",
            "https://x12.org/codes/remittance-advice-remark-codes",
        ),
        Source(
            "lcd-definition",
            "42 CFR 426.110 / SSA 1869(f)(2)(B): a local coverage determination is a Medicare "
            "administrative contractor's decision",
            "an LCD governs Medicare claims in the contractor's jurisdiction (Medicare Advantage "
            "plans apply it too); RARC N115 cites one",
            "https://www.ecfr.gov/current/title-42/chapter-IV/subchapter-B/part-426/"
            "subpart-A/section-426.110",
        ),
        Source(
            "dmepos-f2f",
            "42 CFR 410.38, Durable medical equipment: scope and conditions; CMS Required "
            "Face-to-Face Encounter and Written Order Prior to Delivery List",
            "for items on CMS's list (power mobility devices, some orthoses, osteogenesis "
            "stimulators, some hospital beds): a face-to-face encounter in the 6 months before "
            "the written order, and the written order before delivery",
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
            "AHI (or RDI) of at least 15, or 5 to 14 with documented symptoms (excessive "
            "daytime sleepiness, impaired cognition, mood disorders, insomnia) or comorbidity "
            "(hypertension, ischemic heart disease, history of stroke)",
            "https://www.cms.gov/medicare-coverage-database/view/lcd.aspx?lcdid=33718",
        ),
        Source(
            "ncd-oxygen",
            "NCD 240.2, Home Use of Oxygen; LCD L33797 Oxygen and Oxygen Equipment",
            "Group I: arterial PO2 at or below 55 mm Hg or saturation at or below 88% at rest "
            "(awake) on room air",
            "https://www.cms.gov/medicare-coverage-database/view/lcd.aspx?lcdid=33797",
        ),
        Source(
            "lcd-infusion-pumps",
            "LCD L33794, External Infusion Pumps (insulin pumps)",
            "Medicare reads fasting C-peptide (at most 110% of the lower limit of normal) or "
            "beta-cell autoantibodies, education and the injection regimen; HbA1c above 7.0% is "
            "only one of several qualifying glycemic findings (with recurring hypoglycemia, wide "
            "swings, dawn phenomenon, severe excursions)",
            "https://www.cms.gov/medicare-coverage-database/view/lcd.aspx?lcdid=33794",
        ),
        Source(
            "opd-prior-auth",
            "42 CFR 419.83, Prior authorization for hospital outpatient department services; "
            "CMS Prior Authorization and Pre-Claim Review Initiatives",
            "the services Medicare itself reviews first: blepharoplasty, botulinum toxin, "
            "panniculectomy, rhinoplasty, vein ablation, cervical fusion, spinal "
            "neurostimulators, facet joint interventions: no radiograph, ECG or spirometry",
            "https://www.cms.gov/research-statistics-data-and-systems/monitoring-programs/"
            "medicare-ffs-compliance-programs/prior-authorization-and-pre-claim-review-"
            "initiatives",
        ),
        Source(
            "advanced-imaging-auth",
            "Radiology benefit management programs (e.g. UnitedHealthcare Radiology Prior "
            "Authorization and Notification)",
            "CT, MRI, MRA, PET and nuclear medicine (nuclear cardiology included) may need "
            "authorization; plain radiographs are not on the list",
            "https://www.uhcprovider.com/en/prior-auth-advance-notification/"
            "radiology-prior-authorization.html",
        ),
    )
}


def source(key: str) -> Source:
    return SOURCES[key]

"""Social history as the patient portal's problem lists record it: the findings, their status
groups and which come and go, from which social.py draws one consistent history per patient."""

from __future__ import annotations

# Social history as Synthea records it at wellness visits (SNOMED CT findings), each closed at
# the next visit: the bulk of a long problem list, most of it ended, the latest still "active".
# A status group holds findings that exclude each other at one visit (social.py draws one
# consistent history per patient; checks/social.py holds every problem list to it).
Finding = tuple[str, str]  # (code, description)
SMOKING: dict[str, Finding] = {
    "never": ("266919005", "Never smoked tobacco (finding)"),
    "current": ("449868002", "Smokes tobacco daily (finding)"),
    "former": ("8517006", "Ex-smoker (finding)"),
}
ALCOHOL: dict[str, Finding] = {
    "never": ("783261004", "Lifetime non-drinker of alcohol (finding)"),
    "current": ("219006", "Current drinker of alcohol (finding)"),
    "former": ("82581004", "Ex-drinker (finding)"),
}
UNHEALTHY_DRINKING: Finding = (
    "10939881000119105",
    "Unhealthy alcohol drinking behavior (finding)",
)
EMPLOYMENT: dict[str, Finding] = {
    "full": ("160903007", "Full-time employment (finding)"),
    "part": ("160904001", "Part-time employment (finding)"),
    "out": ("741062008", "Not in labor force (finding)"),
    "unemployed": ("73438004", "Unemployed (finding)"),
}
EDUCATION: dict[str, Finding] = {  # in order: a later level never gives way to an earlier one
    "secondary": ("5251000175109", "Received certificate of high school equivalency (finding)"),
    "higher": ("224299000", "Received higher education (finding)"),
}
HOUSING: dict[str, Finding] = {
    "homeless": ("32911000", "Homeless (finding)"),
    "unsatisfactory": ("105531004", "Housing unsatisfactory (finding)"),
}
# Findings that come and go: each is a spell of wellness visits.
EPISODIC: tuple[Finding, ...] = (
    ("73595000", "Stress (finding)"),
    ("422650009", "Social isolation (finding)"),
    ("423315002", "Limited social contact (finding)"),
    ("706893006", "Victim of intimate partner abuse (finding)"),
    ("424393004", "Reports of violence in the environment (finding)"),
    ("361055000", "Misuses drugs (finding)"),
    ("713458007", "Lack of access to transportation (finding)"),
    ("160968000", "Risk activity involvement (finding)"),
)
# Facts of a life: once true, true at every later visit.
LASTING: tuple[Finding, ...] = (
    ("266948004", "Has a criminal record (finding)"),
    ("224355006", "Served in armed forces (finding)"),
)
MEDICATION_REVIEW: Finding = ("314529007", "Medication review due (situation)")

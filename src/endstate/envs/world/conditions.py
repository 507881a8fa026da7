"""What each diagnosis looks like in the chart: the complaint a history states, the conservative
care tried before a procedure, and the radiology study that belongs in its workup.

Keyed by `Dx.condition` in the catalogue; the notes and letters of a referral draw from the entry
of its primary diagnosis, and the coherence checks hold them to it. A diagnosis a child can have
(chest pain, sleep apnoea, snoring) lists adult care too: `therapies_for` keeps only what fits
the patient's age (age_limits.py), so a letter never tells of a 13-year-old on aspirin and a
statin.
"""

from __future__ import annotations

from dataclasses import dataclass

from endstate.envs.world.age_limits import too_young


@dataclass(frozen=True)
class Condition:
    """What a diagnosis looks like in the chart: the history's complaint, the conservative care
    tried before a procedure (empty where none substitutes for prompt treatment) and the prior
    radiology study, if one belongs in the workup."""

    complaint: str
    therapies: tuple[str, ...]
    imaging: tuple[str, tuple[str, ...]] | None = None  # study, its possible impressions

    def therapies_for(self, years: int) -> tuple[str, ...]:
        """The conservative care that fits a patient of `years`, in catalogue order (all of it
        for an adult, so an adult's draw is the same as from `therapies`)."""
        return tuple(t for t in self.therapies if too_young(t, years) is None)


_PT, _NSAID = "physical therapy", "NSAIDs and activity modification"
_CXR = "Chest radiograph, two views"
_CLEAR = "no acute cardiopulmonary abnormality"
_SWALLOW = ("Barium esophagram", ("small sliding hiatal hernia; no stricture or mass",))
CONDITIONS: dict[str, Condition] = {
    "cataract": Condition(
        "Blurred vision and glare interfere with driving and reading",
        ("updated spectacle correction", "anti-glare lenses and improved task lighting"),
    ),
    "glaucoma": Condition(
        "Intraocular pressure remains above target with progressive nerve-fiber thinning",
        ("topical prostaglandin analogue drops", "combined topical pressure-lowering drops"),
    ),
    "wet_amd": Condition("New distortion and central blur on home Amsler grid testing", ()),
    "diabetic_eye": Condition(
        "Diabetic retinal changes persist on examination",
        ("glycemic and blood-pressure optimization",),
    ),
    "knee_oa": Condition(
        "Knee pain and stiffness limit walking and stairs",
        (_PT, _NSAID, "intra-articular corticosteroid injections", "weight management"),
        ("Standing knee radiographs", ("joint-space narrowing with marginal osteophytes",
                                       "moderate to severe degenerative change, worse medially")),
    ),
    "meniscus": Condition(
        "Medial joint-line pain with mechanical locking persists",
        (_PT, _NSAID, "protected weight bearing and a home exercise program"),
        ("MRI of the knee", ("tear of the posterior horn of the medial meniscus",)),
    ),
    "rotator_cuff": Condition(
        "Shoulder pain and weakness limit overhead activity",
        (_PT, _NSAID, "a subacromial corticosteroid injection"),
        ("MRI of the shoulder", ("full-thickness supraspinatus tear with mild retraction",)),
    ),
    "back": Condition(
        "Low back pain limits sitting and work",
        (_PT, _NSAID, "a home exercise program", "chiropractic care"),
        ("Lumbar spine radiographs", ("mild degenerative change at L4-L5 and L5-S1",
                                      "multilevel disc-space narrowing without fracture")),
    ),
    "radiculopathy": Condition(
        "Low back pain radiating below the knee with paresthesia persists",
        (_PT, _NSAID, "an oral corticosteroid taper", "gabapentin titration"),
        ("Lumbar spine radiographs", ("disc-space narrowing at L5-S1 without fracture",)),
    ),
    "headache": Condition(
        "Recurrent headaches with a change in pattern continue",
        ("a headache diary with NSAID and triptan trials", "preventive amitriptyline"),
        ("CT head without contrast", ("no acute intracranial abnormality",)),
    ),
    "knee_pain": Condition(
        "Knee pain with swelling after activity persists",
        (_PT, _NSAID, "bracing and a home exercise program"),
        ("Knee radiographs, three views", ("small joint effusion without fracture",)),
    ),
    "abdominal_pain": Condition(
        "Diffuse abdominal pain with bloating persists",
        ("dietary modification and antispasmodics", "empiric acid suppression"),
        ("Abdominal radiographs", ("nonobstructive bowel gas pattern",)),
    ),
    "cad": Condition(
        "Exertional chest pressure relieved by rest continues",
        ("antianginal therapy (beta-blocker and long-acting nitrate)",
         "aspirin, high-intensity statin and risk-factor modification"),
        (_CXR, (_CLEAR,)),
    ),
    "afib": Condition(
        "Palpitations and exertional fatigue continue",
        ("rate control with a beta-blocker and anticoagulation",),
        (_CXR, (_CLEAR, "mild cardiomegaly without pulmonary edema")),
    ),
    "chest_pain": Condition(
        "Intermittent chest discomfort without a clear trigger continues",
        ("aspirin and statin therapy with risk-factor modification", "empiric acid suppression"),
        (_CXR, (_CLEAR,)),
    ),
    "heart_failure": Condition(
        "Exertional dyspnea and ankle edema persist",
        ("medication titration (loop diuretic, beta-blocker, ACE inhibitor)",
         "sodium and fluid restriction with daily weights"),
        (_CXR, ("mild cardiomegaly without pulmonary edema", "small bilateral pleural effusions")),
    ),
    "gerd": Condition(
        "Heartburn and regurgitation persist",
        ("proton-pump inhibitor therapy", "twice-daily PPI therapy and dietary modification"),
        _SWALLOW,
    ),
    "dysphagia": Condition(
        "Solid-food dysphagia persists",
        ("proton-pump inhibitor therapy", "diet texture modification"),
        _SWALLOW,
    ),
    "crohns": Condition(
        "Abdominal pain and loose stools persist",
        ("budesonide induction therapy", "azathioprine maintenance therapy"),
        ("CT enterography", ("mural thickening of the terminal ileum without abscess",)),
    ),
    "anemia": Condition(
        "Fatigue with iron-deficiency anemia persists",
        ("oral iron supplementation",),
    ),
    "osa": Condition(
        "Loud snoring, witnessed apneas and daytime sleepiness continue",
        ("positional therapy and weight loss", "an oral appliance trial"),
    ),
    "snoring": Condition(
        "Loud nightly snoring with unrefreshing sleep continues",
        ("positional therapy and weight loss", "avoidance of evening alcohol and sedatives"),
    ),
    "copd": Condition(
        "Exertional dyspnea and chronic cough continue",
        ("inhaled bronchodilator therapy", "a long-acting bronchodilator and pulmonary rehab"),
        (_CXR, ("hyperinflation with flattened hemidiaphragms; no consolidation",)),
    ),
}  # fmt: skip

"""Letters of medical necessity in their authors' voices: different words, the same facts."""

from __future__ import annotations

import pytest

from endstate.envs.world import generate_world
from endstate.envs.world.letters import VOICES, LetterFacts, voice_of

FACTS = LetterFacts(
    to="Bayview Health Plan PPO",
    patient="Ada Lovel, DOB 01/02/1970, MRN12345678",
    dated="Date: 02/01/2026\n",
    asks=["Knee arthroscopy (right) (CPT 29881, 1 unit(s))", "MRI knee (CPT 73721, 1 unit(s))"],
    diagnoses=["S83.241A Tear of medial meniscus, right knee", "M25.561 Pain in right knee"],
    rationale="Conservative management with physical therapy for 8 weeks has failed.",
    signature="Electronically signed by Grace Hopper, MD.",
)


@pytest.mark.parametrize("voice", VOICES, ids=lambda v: v.__name__)
def test_every_voice_carries_every_fact_and_ends_on_the_signature(voice: object) -> None:
    assert callable(voice)
    text = voice(FACTS)
    for fact in [FACTS.to, FACTS.patient, FACTS.rationale, *FACTS.asks, *FACTS.diagnoses]:
        assert fact in text, (voice, fact)
    assert "Date: 02/01/2026" in text
    assert text.endswith(FACTS.signature)


def test_a_world_has_several_voices_and_each_author_keeps_one() -> None:
    world = generate_world()
    # Letters for referrals and claims (a DME order's letter is a supplier's form).
    letters = [
        d for d in world.documents if d.kind == "lmn" and not (d.related_id or "").startswith("DME")
    ]
    authors = {d.author for d in letters}
    assert len({voice_of(a) for a in authors}) >= 3
    for author in authors:
        voice = VOICES[voice_of(author)]
        # One voice per author: every letter opens as that voice opens (the narrative
        # letter opens on its addressee, so compare on the voice's own fixed line).
        fixed = voice(FACTS).splitlines()[0 if voice.__name__ != "narrative" else 1]
        assert all(fixed in d.text for d in letters if d.author == author), author

"""Letters of medical necessity in their authors' own voices.

Real letters differ by who writes them: a formal request, a bulleted summary, a narrative to
the medical director, a terse statement. Each provider keeps one voice (chosen from the name,
so the world's random draws are untouched), and every voice carries the same facts: the
addressee, the patient, the services asked for, the diagnoses, the clinical rationale (whose
"management with ... for N weeks" the coherence checks read) and the signature line, which
stays last so a draft can replace it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class LetterFacts:
    to: str
    patient: str  # "First Last, DOB MM/DD/YYYY, MRN 12345678"
    dated: str  # extra header lines (dates), each ending in a newline, or ""
    asks: list[str]  # the services asked for, one phrase each
    diagnoses: list[str]  # "CODE description", primary first
    rationale: str  # the clinical sentences: course of care, why now
    signature: str  # "Electronically signed by ..."


def voice_of(author: str) -> int:
    """The author's voice: stable across worlds and machines, drawn from no rng."""
    return hashlib.sha256(author.encode("utf-8")).digest()[0] % len(VOICES)


def formal(f: LetterFacts) -> str:
    return (
        "LETTER OF MEDICAL NECESSITY\n"
        f"To: {f.to}\nRe: {f.patient}\n{f.dated}\n"
        f"I am writing to request coverage of the following for my patient: {'; '.join(f.asks)}. "
        f"Diagnoses: {'; '.join(f.diagnoses)}. {f.rationale}\n\n{f.signature}"
    )


def bulleted(f: LetterFacts) -> str:
    asks = "\n".join(f"  - {a}" for a in f.asks)
    dxs = "\n".join(f"  - {d}" for d in f.diagnoses)
    return (
        "REQUEST FOR PRIOR AUTHORIZATION - MEDICAL NECESSITY\n"
        f"Attention: {f.to}\nPatient: {f.patient}\n{f.dated}\n"
        f"Services requested:\n{asks}\nDiagnoses:\n{dxs}\n"
        f"Clinical summary: {f.rationale}\n"
        "Please contact our office with any questions about this request.\n\n"
        f"{f.signature}"
    )


def narrative(f: LetterFacts) -> str:
    return (
        f"{f.to}\nAttn: Medical Director\n{f.dated}\n"
        f"Dear Medical Director,\n\nMy patient, {f.patient}, has been under my care for "
        f"{'; '.join(f.diagnoses)}. {f.rationale} I therefore ask that you approve "
        f"{'; '.join(f.asks)}.\n\nThank you for your prompt review.\n\nSincerely,\n"
        f"{f.signature}"
    )


def terse(f: LetterFacts) -> str:
    return (
        "STATEMENT OF MEDICAL NECESSITY\n"
        f"Payer: {f.to}\nMember: {f.patient}\n{f.dated}\n"
        f"Requested: {'; '.join(f.asks)}\nICD-10: {'; '.join(f.diagnoses)}\n"
        f"Rationale: {f.rationale}\n\n{f.signature}"
    )


VOICES = (formal, bulleted, narrative, terse)


def letter(author: str, facts: LetterFacts) -> str:
    return VOICES[voice_of(author)](facts)

"""What a judge reads and what it answers: shared by the client and the verdict cache."""

from __future__ import annotations

from pydantic import BaseModel

from endstate.records import SafeText


class RubricInput(BaseModel):
    """A rubric check rendered against one state document: what the judge reads (text an end
    state held that is not valid Unicode reaches the judge escaped, as it reaches records)."""

    description: SafeText
    context: SafeText
    answer: SafeText
    rubric: SafeText

    def user_message(self) -> str:
        return (
            f"Check: {self.description}\n"
            f"Context of the answer: {self.context}\n"
            f"Answer:\n<<<\n{self.answer}\n>>>\n"
            f"Rubric: {self.rubric}"
        )


class JudgeVerdict(BaseModel):
    grade: int
    votes: list[int]
    cached: bool = False  # True only for a verdict read back from the cache with a valid MAC


class JudgeUnavailable(Exception):
    """The judge could not grade: the check stays ungraded, never silently zero or full."""

"""A judge that asks nobody: it answers with the verdicts a bundle recorded.

Re-scoring runs the scorer exactly as the run did; only the rubric calls are answered from the
record. A verdict applies only to the very input it was given: when the end state renders a
different input (an edited state), there is no recorded verdict and the check stays ungraded,
so the difference shows.
"""

from __future__ import annotations

from typing import Any

from endstate.records import JudgeIdentity
from endstate.scoring.judge import Judge
from endstate.scoring.judge_models import JudgeUnavailable, JudgeVerdict, RubricInput

NO_RECORDED_VERDICT = "no recorded verdict for this rendered rubric input"


class RecordedJudge(Judge):
    """Replays recorded verdicts by their rendered input; never calls an endpoint."""

    def __init__(self, identity: JudgeIdentity, calls: list[dict[str, Any]]) -> None:
        # Deliberately not Judge.__init__: no client, no cache, no budget. The scorer reads
        # `identity`, `grade` and `want_rejudge` only.
        self.identity = identity
        self.down = None
        self._calls = calls

    def grade(self, rendered: RubricInput, fresh: bool = False) -> JudgeVerdict:
        wanted = rendered.model_dump()
        for call in self._calls:
            if call.get("input") == wanted:
                votes = [int(v) for v in call.get("votes") or []]
                if not votes:
                    break
                return JudgeVerdict(grade=int(sum(votes) * 2 > len(votes)), votes=votes)
        raise JudgeUnavailable(NO_RECORDED_VERDICT)

    def want_rejudge(self) -> bool:
        return False

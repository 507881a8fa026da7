"""The rubric judge: any OpenAI-compatible chat endpoint, k calls, strict majority, disk cache.

A judge never guesses. Not configured, unreachable, slow past its deadline, over its budget, or
answering anything but a reply of the documented shape: the check is ungraded
(`JudgeUnavailable`), and the task that holds it cannot pass. Nothing a judge sends can raise
out of scoring.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx2

from endstate.endpoints import Endpoint, check_endpoint
from endstate.manifest import EndpointCheck
from endstate.records import JudgeIdentity
from endstate.scoring.deadline import DEADLINE, DeadlineExceeded, DeadlineTransport
from endstate.scoring.judge_models import JudgeUnavailable, JudgeVerdict, RubricInput
from endstate.scoring.judge_reply import parse_grade, reply_text
from endstate.scoring.verdict_cache import VerdictCache, key_path_for

__all__ = [
    "DEFAULT_KEY_ENV",
    "PROMPT_VERSION",
    "Judge",
    "JudgeConfig",
    "JudgeUnavailable",
    "JudgeVerdict",
    "RubricInput",
    "VerdictCache",
    "key_path_for",
    "parse_grade",
]

PROMPT_VERSION = "endstate-judge-v1"
DEFAULT_KEY_ENV = "ENDSTATE_JUDGE_API_KEY"

SYSTEM_PROMPT = (
    "You grade one piece of work done by an operations agent in a healthcare revenue-cycle "
    "system. You are given what the check is about, the context of the answer, the answer "
    "itself and a rubric. Judge only the answer against the rubric. An empty answer fails. "
    'Reply with one JSON object and nothing else: {"grade": 1, "reason": "..."} if the '
    'rubric is satisfied, {"grade": 0, "reason": "..."} if it is not.'
)


@dataclass(frozen=True)
class JudgeConfig:
    """How to reach a judge. The API key is read from the environment, never recorded."""

    model: str
    base_url: str = "https://api.openai.com/v1"
    k: int = 3
    temperature: float = 0.0
    timeout: float = 60.0  # per call, wall clock: connect, headers and the whole body
    max_retries: int = 2  # per check, shared by its k calls, for transient failures only
    api_key_env: str = DEFAULT_KEY_ENV
    cache_path: Path | None = None
    budget: float | None = None  # seconds spent waiting on the judge per run; then ungraded
    give_up_after: int = 3  # identical failures in a row that stop asking (0: never)
    rejudge: int = 0  # verdicts re-judged with fresh calls, to measure the judge's variance

    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(
            model=self.model,
            endpoint=self.base_url,
            prompt_version=PROMPT_VERSION,
            k=self.k,
            temperature=self.temperature,
        )


class _CallFailed(Exception):
    def __init__(self, reason: str, transient: bool, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.transient = transient
        self.timed_out = timed_out


def _classify(exc: Exception, timeout: float) -> _CallFailed:
    """One reason for any failure of a call, and whether trying again could help."""
    import openai

    if isinstance(exc, _CallFailed):
        return exc
    if isinstance(exc, DeadlineExceeded | httpx2.TimeoutException | openai.APITimeoutError):
        return _CallFailed(f"judge call cut at its {timeout:g}s limit", True, timed_out=True)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        return _CallFailed(f"judge endpoint returned HTTP {status}", status == 429 or status >= 500)
    if isinstance(exc, openai.APIConnectionError | httpx2.TransportError):
        return _CallFailed(f"judge endpoint unreachable ({type(exc).__name__})", True)
    if isinstance(exc, ValueError):  # parse_grade and reply_text name what was wrong
        return _CallFailed(str(exc)[:300], False)
    return _CallFailed(f"judge reply unusable: {type(exc).__name__}: {exc}"[:300], False)


class Judge:
    """Grades rendered rubric inputs by majority over k calls to a chat endpoint."""

    def __init__(
        self, config: JudgeConfig, on_problem: Callable[[str], None] | None = None
    ) -> None:
        self.config = config
        self.identity = config.identity()
        self.cache = VerdictCache(config.cache_path) if config.cache_path else None
        self.on_problem = on_problem  # told each new kind of failure, at once
        self._busy = 0.0  # seconds during which at least one call was in flight, so far
        self._in_flight = 0
        self._busy_since = 0.0
        self.down: str | None = None  # why the judge is no longer asked, if it is not
        self.rejudged = 0
        self._lock = threading.Lock()
        self._last_failure: str | None = None
        self._repeats = 0
        self._told: set[str] = set()
        import openai  # deferred: only scoring with a judge pays for the client's import

        self._client = openai.OpenAI(
            base_url=config.base_url,
            api_key=self._key() or "none",
            max_retries=0,  # retries are ours, inside the check's budget
            http_client=httpx2.Client(transport=DeadlineTransport()),
        )

    def _key(self) -> str | None:
        return os.environ.get(self.config.api_key_env) or os.environ.get("OPENAI_API_KEY")

    async def preflight(self) -> EndpointCheck:
        """The judge's endpoint answers and takes the key, or EndstateError: checked before a
        run whose tasks hold rubric checks, so a dead judge is a refusal, not a run of
        ungraded checks."""
        key = self._key()
        return await check_endpoint(
            Endpoint(
                role="judge",
                api="openai-chat",
                model=self.config.model,
                base_url=self.config.base_url,
                api_key=key or "none",
                key_set=key is not None,
                key_hint=f"${self.config.api_key_env} or $OPENAI_API_KEY",
                option="--judge-base-url",
            )
        )

    # -- time spent waiting on the judge ----------------------------------------------------
    @property
    def spent(self) -> float:
        """Wall-clock seconds with a call in flight: parallel calls are not counted twice."""
        with self._lock:
            return self._busy + (time.monotonic() - self._busy_since if self._in_flight else 0.0)

    def _begin(self) -> float:
        """Starts a call; returns the seconds it may take (its timeout or the budget left)."""
        left = None if self.config.budget is None else self.config.budget - self.spent
        if left is not None and left <= 0:
            raise JudgeUnavailable(self._budget_reason())
        with self._lock:
            if not self._in_flight:
                self._busy_since = time.monotonic()
            self._in_flight += 1
        return self.config.timeout if left is None else min(self.config.timeout, left)

    def _end(self) -> None:
        with self._lock:
            self._in_flight -= 1
            if not self._in_flight:
                self._busy += time.monotonic() - self._busy_since

    def _budget_reason(self) -> str:
        return f"judge budget of {self.config.budget:g}s spent"

    # -- one call ---------------------------------------------------------------------------
    def _call(self, rendered: RubricInput) -> int:
        limit = self._begin()
        token = DEADLINE.set(time.monotonic() + limit)
        try:
            response = self._client.chat.completions.create(
                model=self.config.model,
                temperature=self.config.temperature,
                messages=[
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": rendered.user_message()},
                ],
            )
            return parse_grade(reply_text(response))
        except Exception as exc:  # nothing a judge sends may raise out of scoring
            failure = _classify(exc, self.config.timeout)
            if failure.timed_out and limit < self.config.timeout:
                raise _CallFailed(self._budget_reason(), False) from exc
            raise failure from exc
        finally:
            DEADLINE.reset(token)
            self._end()

    def _votes(self, rendered: RubricInput) -> list[int]:
        """k votes; transient failures retried while the check's retries last."""
        retries = self.config.max_retries
        votes: list[int] = []
        while len(votes) < self.config.k:
            try:
                votes.append(self._call(rendered))
            except _CallFailed as exc:
                if exc.transient and retries > 0:
                    retries -= 1
                    continue
                raise JudgeUnavailable(exc.reason) from exc
        return votes

    # -- a check ----------------------------------------------------------------------------
    def grade(self, rendered: RubricInput, fresh: bool = False) -> JudgeVerdict:
        """Majority of k grades; every call must succeed or the check stays ungraded.

        `fresh` asks the judge even when the cache holds a verdict (and does not replace it)."""
        if self.down is not None:
            raise JudgeUnavailable(self.down)
        key = VerdictCache.key(self.identity, rendered) if self.cache else ""
        if self.cache and not fresh:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        try:
            votes = self._votes(rendered)
        except JudgeUnavailable as exc:
            self._failed(str(exc))
            raise
        self._succeeded()
        verdict = JudgeVerdict(grade=int(sum(votes) * 2 > len(votes)), votes=votes)
        if self.cache and not fresh:
            self.cache.put(key, verdict)
        return verdict

    def want_rejudge(self) -> bool:
        """Whether the next verdict should also be judged afresh (`rejudge` of them per run)."""
        with self._lock:
            if self.rejudged >= self.config.rejudge:
                return False
            self.rejudged += 1
            return True

    def _succeeded(self) -> None:
        with self._lock:
            self._last_failure, self._repeats = None, 0

    def _failed(self, reason: str) -> None:
        with self._lock:
            self._repeats = self._repeats + 1 if reason == self._last_failure else 1
            self._last_failure = reason
            new = reason not in self._told
            self._told.add(reason)
            limit = self.config.give_up_after
            if limit and self._repeats >= limit and not reason.startswith("judge budget"):
                self.down = (
                    f"judge not asked again after {self._repeats} identical failures: {reason}"
                )
        if new and self.on_problem is not None:
            self.on_problem(reason)

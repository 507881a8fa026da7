"""The rubric judge: any OpenAI-compatible chat endpoint, k calls, strict majority, disk cache.

A judge never guesses. Not configured, an HTTP error, a timeout or a reply that does not parse
all leave the check ungraded (`JudgeUnavailable`), and the task that holds it cannot pass.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from endstate.records import JudgeIdentity

PROMPT_VERSION = "endstate-judge-v1"
DEFAULT_KEY_ENV = "ENDSTATE_JUDGE_API_KEY"

SYSTEM_PROMPT = (
    "You grade one piece of work done by an operations agent in a healthcare revenue-cycle "
    "system. You are given what the check is about, the context of the answer, the answer "
    "itself and a rubric. Judge only the answer against the rubric. An empty answer fails. "
    'Reply with one JSON object and nothing else: {"grade": 1, "reason": "..."} if the '
    'rubric is satisfied, {"grade": 0, "reason": "..."} if it is not.'
)


class RubricInput(BaseModel):
    """A rubric check rendered against one state document: what the judge reads."""

    description: str
    context: str
    answer: str
    rubric: str

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
    cached: bool = False


class JudgeUnavailable(Exception):
    """The judge could not grade: the check stays ungraded, never silently zero or full."""


@dataclass(frozen=True)
class JudgeConfig:
    """How to reach a judge. The API key is read from the environment, never recorded."""

    model: str
    base_url: str = "https://api.openai.com/v1"
    k: int = 3
    temperature: float = 0.0
    timeout: float = 60.0
    max_retries: int = 2
    api_key_env: str = DEFAULT_KEY_ENV
    cache_path: Path | None = None

    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(
            model=self.model,
            endpoint=self.base_url,
            prompt_version=PROMPT_VERSION,
            k=self.k,
            temperature=self.temperature,
        )


_GRADE_KEYS = ("grade", "score")


def parse_grade(reply: str) -> int:
    """A binary grade from a JSON reply; anything else is unparseable (ValueError)."""
    text = reply.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"judge reply is not JSON: {reply[:80]!r}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"judge reply is not a JSON object: {reply[:80]!r}")
    for key in _GRADE_KEYS:
        if key in data:
            value = data[key]
            if isinstance(value, bool):
                return int(value)
            if isinstance(value, int | float) and value in (0, 1):
                return int(value)
            raise ValueError(f"judge grade is not 0 or 1: {value!r}")
    raise ValueError(f"judge reply has no grade: {reply[:80]!r}")


class VerdictCache:
    """Verdicts on disk in SQLite, keyed by judge identity + rendered inputs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, value TEXT)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    @staticmethod
    def key(identity: JudgeIdentity, rendered: RubricInput) -> str:
        blob = json.dumps(
            {"judge": identity.model_dump(), "input": rendered.model_dump()}, sort_keys=True
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def get(self, key: str) -> JudgeVerdict | None:
        with self._lock, self._connect() as db:
            row = db.execute("SELECT value FROM verdicts WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return JudgeVerdict.model_validate_json(row[0]).model_copy(update={"cached": True})

    def put(self, key: str, verdict: JudgeVerdict) -> None:
        with self._lock, self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO verdicts (key, value) VALUES (?, ?)",
                (key, verdict.model_dump_json(exclude={"cached"})),
            )


class Judge:
    """Grades rendered rubric inputs by majority over k calls to a chat endpoint."""

    def __init__(self, config: JudgeConfig) -> None:
        self.config = config
        self.identity = config.identity()
        self.cache = VerdictCache(config.cache_path) if config.cache_path else None
        import openai  # deferred: only scoring with a judge pays for the client's import

        self._openai = openai
        self._client = openai.OpenAI(
            base_url=config.base_url,
            api_key=os.environ.get(config.api_key_env)
            or os.environ.get("OPENAI_API_KEY")
            or "none",
            timeout=config.timeout,
            max_retries=config.max_retries,
        )

    def _call(self, rendered: RubricInput) -> int:
        openai = self._openai
        try:
            response = self._client.chat.completions.create(
                model=self.config.model,
                temperature=self.config.temperature,
                messages=[
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": rendered.user_message()},
                ],
            )
        except openai.APITimeoutError as exc:
            raise JudgeUnavailable(f"judge timed out after {self.config.timeout:g}s") from exc
        except openai.APIStatusError as exc:
            raise JudgeUnavailable(f"judge endpoint returned HTTP {exc.status_code}") from exc
        except openai.APIError as exc:
            raise JudgeUnavailable(
                f"judge endpoint error: {exc.__class__.__name__}: {exc}"
            ) from exc
        choices: list[Any] = list(response.choices or [])
        content = choices[0].message.content if choices else None
        if not content:
            raise JudgeUnavailable("judge reply was empty")
        try:
            return parse_grade(content)
        except ValueError as exc:
            raise JudgeUnavailable(str(exc)) from exc

    def grade(self, rendered: RubricInput) -> JudgeVerdict:
        """Majority of k grades; every call must succeed or the check stays ungraded."""
        key = VerdictCache.key(self.identity, rendered) if self.cache else ""
        if self.cache:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        votes = [self._call(rendered) for _ in range(self.config.k)]
        verdict = JudgeVerdict(grade=int(sum(votes) * 2 > len(votes)), votes=votes)
        if self.cache:
            self.cache.put(key, verdict)
        return verdict

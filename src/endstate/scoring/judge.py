"""The rubric judge: any OpenAI-compatible chat endpoint, k calls, strict majority, disk cache.

A judge never guesses. Not configured, an HTTP error, a timeout or a reply that does not parse
all leave the check ungraded (`JudgeUnavailable`), and the task that holds it cannot pass.

The verdict cache is authenticated: every row carries an HMAC-SHA256 over its key and value,
keyed by a secret in a separate file (`<cache>.key`, mode 0600). Whoever can write the cache
but not read the key cannot plant a verdict: a row that does not verify is a miss (the judge is
asked again and the row overwritten), counted in `VerdictCache.rejected`, never trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import sqlite3
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from endstate.errors import EndstateError
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
    cached: bool = False  # True only for a verdict read back from the cache with a valid MAC


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


KEY_BYTES = 32
_MAC_CONTEXT = b"endstate-verdict-cache-v1"


def key_path_for(cache: Path) -> Path:
    """Where the cache's MAC key lives: beside the cache, never inside it."""
    return cache.with_name(cache.name + ".key")


def _create_key(path: Path) -> None:
    """A fresh random key, published under `path` only complete and only if none exists."""
    key = secrets.token_bytes(KEY_BYTES)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    _write_new(tmp, key)
    try:
        os.link(tmp, path)  # no-replace and atomic: nobody ever reads a partial key
    except FileExistsError:
        pass  # another process won the race: everyone uses its key
    except OSError:  # a filesystem without hard links: create in place, still exclusively
        with contextlib.suppress(FileExistsError):
            _write_new(path, key)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _write_new(path: Path, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def load_key(path: Path) -> bytes:
    """The cache's MAC key, created on first use; refused unless private to this user."""
    if not path.exists() and not path.is_symlink():
        _create_key(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise EndstateError(
            f"{path}: cannot open the judge cache key ({exc.strerror or exc}); "
            "it must be a regular file, not a symlink"
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise EndstateError(f"{path}: the judge cache key is not a regular file")
        if info.st_mode & 0o077:
            raise EndstateError(
                f"{path}: the judge cache key is accessible to group or other "
                f"(mode {stat.S_IMODE(info.st_mode):04o}); refusing it. Make it private "
                f"(chmod 600 {path}) or delete it (cached verdicts are then re-judged)"
            )
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise EndstateError(
                f"{path}: the judge cache key belongs to another user (uid {info.st_uid}); "
                "refusing it"
            )
        data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) != KEY_BYTES:
        raise EndstateError(
            f"{path}: the judge cache key is not {KEY_BYTES} bytes; delete it to start over "
            "(cached verdicts are then re-judged)"
        )
    return data


class VerdictCache:
    """Verdicts on disk in SQLite, keyed by judge identity + rendered inputs, each row
    authenticated by an HMAC whose key lives outside the cache file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.key_path = key_path_for(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._secret = load_key(self.key_path)
        self._lock = threading.Lock()
        self.rejected = 0  # rows present but not trusted: bad or missing MAC, unreadable value
        with self._connect() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, value TEXT, mac TEXT)"
            )
            columns = {row[1] for row in db.execute("PRAGMA table_info(verdicts)")}
            if "mac" not in columns:  # a cache from before MACs: its rows stay, untrusted
                db.execute("ALTER TABLE verdicts ADD COLUMN mac TEXT")

    def __repr__(self) -> str:  # never the key
        return f"VerdictCache({str(self.path)!r})"

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    @staticmethod
    def key(identity: JudgeIdentity, rendered: RubricInput) -> str:
        blob = json.dumps(
            {"judge": identity.model_dump(), "input": rendered.model_dump()}, sort_keys=True
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def mac(self, key: str, value: str) -> str:
        """HMAC-SHA256 over the row's key and value: a row cannot be forged or moved."""
        message = b"\0".join((_MAC_CONTEXT, key.encode(), value.encode()))
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def get(self, key: str) -> JudgeVerdict | None:
        """A verified verdict (`cached=True`), or None: absent, or present but not trusted."""
        with self._lock, self._connect() as db:
            row = db.execute("SELECT value, mac FROM verdicts WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        value, mac = row
        verdict = self._verify(key, value, mac)
        if verdict is None:
            with self._lock:
                self.rejected += 1
            return None
        return verdict.model_copy(update={"cached": True})

    def _verify(self, key: str, value: object, mac: object) -> JudgeVerdict | None:
        if not isinstance(value, str) or not isinstance(mac, str):
            return None  # e.g. a row from before MACs
        if not hmac.compare_digest(mac.encode(), self.mac(key, value).encode()):
            return None
        try:
            return JudgeVerdict.model_validate_json(value)
        except ValidationError:
            return None

    def put(self, key: str, verdict: JudgeVerdict) -> None:
        value = verdict.model_dump_json(exclude={"cached"})
        with self._lock, self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO verdicts (key, value, mac) VALUES (?, ?, ?)",
                (key, value, self.mac(key, value)),
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

"""The judge's verdict cache: verdicts on disk, each row authenticated.

Every row carries an HMAC-SHA256 over its key and value, keyed by a secret in a separate file
(`<cache>.key`, mode 0600). Whoever can write the cache but not read the key cannot plant a
verdict: a row that does not verify is a miss (the judge is asked again and the row
overwritten), counted in `VerdictCache.rejected`, never trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import stat
import threading
from pathlib import Path

from pydantic import ValidationError

from endstate.errors import EndstateError
from endstate.records import JudgeIdentity
from endstate.scoring.judge_models import JudgeVerdict, RubricInput

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

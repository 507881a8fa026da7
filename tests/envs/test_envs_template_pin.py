"""The template database's bytes are pinned at start and checked before every episode copy."""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from endstate.corpus.model import PublicTask
from endstate.envs import EmbeddedSuite
from endstate.envs.server import GradingRefused
from endstate.envs.suite.database import EpisodeDB
from endstate.envs.suite.world_db import (
    TemplateDatabase,
    TemplateTampered,
    build_template,
    default_cache_dir,
    private_template,
    template_path,
)
from endstate.envs.world import generate_world
from endstate.runs.embedded import EmbeddedEnvironment

from .conftest import WORLD_SEED
from .envs_support import Visitor

POISON = "POISONED BY A CACHE EDIT"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _poison(path: Path, referral_id: str) -> None:
    path.chmod(path.stat().st_mode | stat.S_IWUSR)
    conn = sqlite3.connect(path)
    try:
        conn.execute("UPDATE referrals SET reason = ? WHERE id = ?", (POISON, referral_id))
        conn.commit()
    finally:
        conn.close()


def _health(suite: EmbeddedSuite) -> dict[str, object]:
    response = httpx.get(
        f"{suite.grading_url}/health", headers={"Authorization": f"Bearer {suite.token}"}
    )
    response.raise_for_status()
    body: dict[str, object] = response.json()
    return body


@pytest.fixture
def own_suite(tmp_path: Path) -> Iterator[EmbeddedSuite]:
    """A suite of its own: these tests break its template on purpose."""
    running = EmbeddedSuite.start(world_seed=WORLD_SEED, cache_dir=tmp_path / "cache")
    yield running
    running.stop()


def test_the_same_world_gives_the_same_template_bytes() -> None:
    world = generate_world(WORLD_SEED)
    first = build_template(world)
    assert build_template(generate_world(WORLD_SEED)) == first
    assert build_template(generate_world(WORLD_SEED + 1)) != first


def test_a_poisoned_cached_template_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = generate_world(WORLD_SEED)
    referral = world.referrals[0]
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    poisoned = [template_path(world, tmp_path / "cache"), template_path(world)]
    assert poisoned[1].is_relative_to(default_cache_dir())
    for path in poisoned:
        _poison(path, referral.id)
    genuine = hashlib.sha256(build_template(world)).hexdigest()

    for cache_dir in (tmp_path / "cache", None):
        with EmbeddedSuite.start(world_seed=WORLD_SEED, cache_dir=cache_dir) as suite:
            assert suite.template_sha256 == genuine
            assert suite.template_sha256 not in {_sha256(p) for p in poisoned}
            used = suite.runtime.template
            assert used not in poisoned and not used.is_relative_to(tmp_path)
            info = suite.open_episode()
            db = suite.runtime.episodes[info.id].db
            row = db.row("SELECT reason FROM referrals WHERE id = ?", (referral.id,))
            assert row is not None and row["reason"] == referral.reason
            v = Visitor(info.start_urls["ehr"])
            page = v.get(f"/referrals/{referral.id}").text
            assert POISON not in page and referral.reason in page
            v.close()
            state = suite.state(info.id)
            assert state["delta"] == {} and state["world"]["sha256"] == world.sha256


def test_the_private_template_is_owner_only_and_removed_at_stop(tmp_path: Path) -> None:
    suite = EmbeddedSuite.start(world_seed=WORLD_SEED, data_dir=tmp_path / "data")
    path = suite.runtime.template
    try:
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(path.stat().st_mode) & 0o222 == 0  # read-only
        assert _sha256(path) == suite.template_sha256
    finally:
        suite.stop()
    assert not path.parent.exists() and (tmp_path / "data").exists()


def test_a_template_changed_while_running_refuses_the_next_episode(
    own_suite: EmbeddedSuite,
) -> None:
    suite = own_suite
    referral = suite.world.referrals[0]
    before = suite.open_episode()
    path = suite.runtime.template
    pinned = suite.template_sha256
    stamp = path.stat()
    _poison(path, referral.id)
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # an edit that hides its mtime
    assert path.stat().st_mtime_ns == stamp.st_mtime_ns and _sha256(path) != pinned

    with pytest.raises(GradingRefused) as refused:
        suite.open_episode()
    assert str(path) in str(refused.value) and refused.value.response.status_code == 500
    error = refused.value.response.json()["error"]
    assert str(path) in error and "changed" in error
    assert suite.template_sha256 == pinned  # the pin does not follow the file

    # The runner sees the same message (recorded as an unmeasurable attempt).
    async def open_as_the_runner() -> None:
        env = EmbeddedEnvironment(suite, run_seed=7, owns_suite=False)
        try:
            await env.open_episode(PublicTask(id="t", instruction="x", family="prior_auth"), "t#0")
        finally:
            await env.aclose()

    with pytest.raises(RuntimeError, match="template database") as seen:
        asyncio.run(open_as_the_runner())
    assert str(path) in str(seen.value)

    health = _health(suite)
    assert health["ok"] is False
    assert health["template"] == {"sha256": pinned, "intact": False}
    # An episode opened before the edit still reads against the bytes it was copied from.
    state = suite.state(before.id)
    assert state["delta"] == {}
    assert sorted(suite.runtime.episodes) == [before.id]  # nothing half-opened
    suite.close_episode(before.id)


def test_template_sha256_is_stable_and_published(suite: EmbeddedSuite, tmp_path: Path) -> None:
    with EmbeddedSuite.start(world_seed=WORLD_SEED, cache_dir=tmp_path) as second:
        assert second.template_sha256 == suite.template_sha256
        assert second.runtime.template != suite.runtime.template
    genuine = hashlib.sha256(build_template(generate_world(WORLD_SEED))).hexdigest()
    assert suite.template_sha256 == genuine

    health = _health(suite)
    assert health["ok"] is True
    assert health["template"] == {"sha256": suite.template_sha256, "intact": True}

    env = EmbeddedEnvironment(suite, run_seed=1, owns_suite=False)
    try:
        assert env.info().details["template_sha256"] == suite.template_sha256
    finally:
        asyncio.run(env.aclose())


def test_an_episode_copy_checks_the_pinned_bytes(tmp_path: Path) -> None:
    world = generate_world(3)
    template = private_template(world, tmp_path)
    db = EpisodeDB.create(template, tmp_path / "e1.sqlite", world.clock)
    assert _sha256(db.path) == template.sha256 and db.delta() == {}
    db.close()

    template.path.chmod(0o600)
    template.path.write_bytes(template.data[:-1] + b"\x01")
    with pytest.raises(TemplateTampered, match=str(template.path)):
        EpisodeDB.create(template, tmp_path / "e2.sqlite", world.clock)
    assert not (tmp_path / "e2.sqlite").exists()
    template.path.unlink()
    with pytest.raises(TemplateTampered, match="cannot be read"):
        EpisodeDB.create(template, tmp_path / "e3.sqlite", world.clock)
    assert TemplateDatabase(template.path, template.data).sha256 == template.sha256


def test_where_the_kernel_cannot_copy_the_checked_bytes_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = generate_world(3)
    template = private_template(world, tmp_path)

    def refuse(*args: object) -> int:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "copy_file_range", refuse)
    db = EpisodeDB.create(template, tmp_path / "e1.sqlite", world.clock)
    assert _sha256(db.path) == template.sha256 and db.delta() == {}
    db.close()
    template.path.chmod(0o600)
    template.path.write_bytes(template.data[:-1] + b"\x01")
    with pytest.raises(TemplateTampered, match="changed since"):
        EpisodeDB.create(template, tmp_path / "e2.sqlite", world.clock)
    assert not (tmp_path / "e2.sqlite").exists()

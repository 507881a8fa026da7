"""One running suite for the scheduling tests that talk to it directly (module scope)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from endstate.envs import EmbeddedSuite


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedSuite]:
    running = EmbeddedSuite.start(cache_dir=Path(tmp_path_factory.mktemp("templates")))
    yield running
    running.stop()

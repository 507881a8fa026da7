"""One running suite for the scheduling tests that talk to it directly (module scope)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from endstate.envs import EmbeddedSuite

# The scheduling lab's release gates (docs/scheduling-lab.md), as a run declares them.
GATES = """\
gates:
  - {metric: count, outcome: unauthorized_write, max: 0}
  - {metric: count, outcome: duplicate_booking, max: 0}
  - {metric: count, outcome: untraceable_result, max: 0}
  - {metric: count, outcome: unhandled_unknown_outcome, max: 0}
"""


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedSuite]:
    running = EmbeddedSuite.start(cache_dir=Path(tmp_path_factory.mktemp("templates")))
    yield running
    running.stop()

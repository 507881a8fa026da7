"""The benchmark's portals, built once per session from ../shared/peers (skipped without them).

`$ENDSTATE_HAB_CACHE` names a cache to build into and reuse across sessions: the first build
takes a few minutes (`npm ci`, `next build`), a cached one none.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import REQUIRE_SHARED, _shared
from endstate.hab.build import PortalBuild, build_portals

PORTALS = "peers/health-admin-bench-v2-portals"


@pytest.fixture(scope="session")
def portals_source() -> Path:
    return _shared(PORTALS)


@pytest.fixture(scope="session")
def hab_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    kept = os.environ.get("ENDSTATE_HAB_CACHE")
    return Path(kept) if kept else tmp_path_factory.mktemp("hab-cache")


@pytest.fixture(scope="session")
def portal_build(portals_source: Path, hab_cache: Path) -> PortalBuild:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        if os.environ.get(REQUIRE_SHARED):
            pytest.fail(f"{', '.join(missing)} not on PATH (${REQUIRE_SHARED} is set)")
        pytest.skip(f"{', '.join(missing)} not on PATH: the portals cannot be built")
    return build_portals(portals_source, hab_cache)

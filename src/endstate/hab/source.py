"""The portals app's source tree: recognising it, hashing it, copying it, listing its pages.

Only what the user wrote counts: installed packages (`node_modules/`), build output (`.next/`)
and version control (`.git/`) are left out, so a checkout that has been built in place hashes
(and builds) the same as a fresh one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from endstate.errors import EndstateError

EXCLUDED_DIRS = frozenset({"node_modules", ".next", ".git"})
PAGE_FILES = frozenset({"page.tsx", "page.ts", "page.jsx", "page.js"})


def check_portals_app(source: Path) -> None:
    """Refuse, in one line naming the path and what is missing, a tree that is not the app."""
    if not source.is_dir():
        raise EndstateError(f"{source}: not a directory (expected the portals app's checkout)")
    package = source / "package.json"
    if not package.is_file():
        raise EndstateError(f"{source}: not the HealthAdminBench portals app (no package.json)")
    try:
        manifest = json.loads(package.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc).splitlines()[0]
        raise EndstateError(f"{package}: cannot be read as JSON ({reason})") from None
    if not _declares_next(manifest):
        raise EndstateError(
            f"{source}: not the HealthAdminBench portals app "
            "(package.json declares no 'next' dependency)"
        )
    if not (source / "app").is_dir():
        raise EndstateError(f"{source}: not the HealthAdminBench portals app (no app/ directory)")


def _declares_next(manifest: object) -> bool:
    if not isinstance(manifest, dict):
        return False
    for field in ("dependencies", "devDependencies"):
        deps = manifest.get(field)
        if isinstance(deps, dict) and "next" in deps:
            return True
    return False


def source_files(source: Path) -> list[str]:
    """Relative POSIX paths of the app's source files, sorted, excluded folders pruned."""
    found: list[str] = []
    for folder, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if d not in EXCLUDED_DIRS]
        base = Path(folder).relative_to(source)
        found.extend((base / name).as_posix() for name in files)
    return sorted(found)


def source_hash(source: Path) -> str:
    """sha256 over every source file's relative path and bytes: the build's cache key."""
    check_portals_app(source)
    digest = hashlib.sha256()
    for rel in source_files(source):
        data = (source / rel).read_bytes()
        name = rel.encode("utf-8", "surrogateescape")
        # Lengths first, so no two different trees can feed the hash the same byte stream.
        digest.update(f"{len(name)}:{len(data)}:".encode())
        digest.update(name)
        digest.update(data)
    return digest.hexdigest()


def copy_source(source: Path, dest: Path) -> None:
    """Copy the source files into `dest` as plain, writable files (a checkout may be read-only,
    and `npm ci` and `next build` write beside the sources)."""
    for rel in source_files(source):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, target)


def app_routes(app_root: Path) -> list[str]:
    """The pages of the app router, from the `app/` folders holding a page file.

    Route groups `(name)` add no segment; private `_folders` and parallel `@slots` are not
    routes of their own; dynamic segments stay as written (`[id]`).
    """
    routes: set[str] = set()
    app_dir = app_root / "app"
    for folder, dirs, files in os.walk(app_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(("_", "@")))
        if not PAGE_FILES.intersection(files):
            continue
        parts = Path(folder).relative_to(app_dir).parts
        segments = [p for p in parts if not (p.startswith("(") and p.endswith(")"))]
        routes.add("/" + "/".join(segments))
    return sorted(routes)

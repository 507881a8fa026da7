"""Building the portals app from a user's checkout, once per source hash.

A build is a folder `<cache>/hab-portals/<hash[:16]>/` holding the built app (`app/`), the logs
of its steps (`logs/`) and `build.json`. The folder is assembled under a temporary name and
renamed into place only after every step succeeded, with `build.json` written last: a folder
under its final name is always a complete build, an interrupted build leaves only a temporary
folder (removed by the next build once its owner is gone), and two concurrent builds of one
source never write into each other.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from endstate.errors import EndstateError
from endstate.hab.process import end_group, tool_env
from endstate.hab.source import app_routes, copy_source, source_hash

__all__ = [
    "PortalBuild",
    "build_portals",
    "builds_dir",
    "default_cache_dir",
    "find_build",
    "source_hash",
]

MARKER = "build.json"
FORMAT = 1
MIN_NODE_MAJOR = 18
TAIL_LINES = 15
NPM_ERROR = re.compile(r"npm (error|ERR!) code ")

Progress = Callable[[str], None]


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/endstate` (else `~/.cache/endstate`), beside the template databases."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "endstate"


def builds_dir(cache_dir: Path | None = None) -> Path:
    """Where builds are kept: the given cache, else `$ENDSTATE_HAB_CACHE`, else the default."""
    kept = os.environ.get("ENDSTATE_HAB_CACHE")
    return (cache_dir or (Path(kept) if kept else default_cache_dir())) / "hab-portals"


@dataclass(frozen=True)
class PortalBuild:
    """A complete build of the portals app, as its `build.json` records it."""

    root: Path  # the built app: run `next start` here
    source_hash: str
    build_id: str
    routes: list[str]
    node_version: str
    next_version: str

    @classmethod
    def load(cls, folder: Path) -> PortalBuild:
        """Read the build in `folder`; refuse one that is incomplete or not a build at all."""
        marker = folder / MARKER
        try:
            doc = json.loads(marker.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise EndstateError(f"{folder}: not a complete portals build (no {MARKER})") from None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise EndstateError(f"{marker}: unreadable ({exc})") from None
        fields = ("source_hash", "build_id", "node_version", "next_version")
        if (
            not isinstance(doc, dict)
            or doc.get("format") != FORMAT
            or not all(isinstance(doc.get(f), str) for f in fields)
            or not isinstance(doc.get("routes"), list)
            or not all(isinstance(r, str) for r in doc["routes"])
        ):
            raise EndstateError(f"{marker}: not a portals build record (format {FORMAT})")
        root = folder / "app"
        if _read_build_id(root) != doc["build_id"]:
            raise EndstateError(f"{folder}: its .next/BUILD_ID does not match {MARKER}")
        return cls(root=root, routes=list(doc["routes"]), **{f: doc[f] for f in fields})

    def record(self) -> dict[str, Any]:
        """The `build.json` document (the root is where the file lies, so it is not stored)."""
        doc = asdict(self)
        del doc["root"]
        return {"format": FORMAT, **doc}


def find_build(cache_dir: Path | None = None) -> PortalBuild | None:
    """The most recently completed build in the cache, if any."""
    found: list[tuple[float, PortalBuild]] = []
    root = builds_dir(cache_dir)
    if not root.is_dir():
        return None
    for folder in root.iterdir():
        if folder.name.startswith(".") or not (folder / MARKER).is_file():
            continue
        try:
            found.append(((folder / MARKER).stat().st_mtime, PortalBuild.load(folder)))
        except (EndstateError, OSError):
            continue
    return max(found, key=lambda pair: pair[0])[1] if found else None


def build_portals(
    source: Path, cache_dir: Path | None = None, progress: Progress | None = None
) -> PortalBuild:
    """Build the app in `source` (or reuse the cached build of the same source)."""
    say = progress or (lambda _message: None)
    say("hashing the source")
    digest = source_hash(source)
    root = builds_dir(cache_dir)
    final = root / digest[:16]
    cached = _complete(final, digest)
    if cached is not None:
        say(f"reusing the build in {final}")
        return cached
    say("checking Node.js and npm")
    node_version = check_node()
    root.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(root)
    work = Path(tempfile.mkdtemp(dir=root, prefix=f".{digest[:16]}-{os.getpid()}-", suffix=".tmp"))
    work.chmod(0o755)  # mkdtemp's 0700 would follow the build to its final name
    try:
        say("copying the source")
        copy_source(source, work / "app")
        built = _build_in(work, digest, node_version, say)
        (work / MARKER).write_text(json.dumps(built.record(), indent=1) + "\n", encoding="utf-8")
        return _install(work, final, digest)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_node() -> str:
    """Node's version (`v20.…`); refuse a missing `node` or `npm`, or a Node older than 18."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise EndstateError(
                "Node.js 20 and npm are needed to build the portals: "
                f"{tool!r} was not found on PATH"
            )
    try:
        done = subprocess.run(
            ["node", "--version"], capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise EndstateError(f"cannot run 'node --version': {exc}") from None
    version = done.stdout.strip()
    match = re.match(r"v?(\d+)\.", version)
    if match is None:
        raise EndstateError(f"'node --version' printed {version[:60]!r}, not a version")
    if int(match.group(1)) < MIN_NODE_MAJOR:
        raise EndstateError(
            f"Node.js {version} is too old to build the portals: "
            f"version {MIN_NODE_MAJOR} or later is needed (20 recommended)"
        )
    return version


def _build_in(work: Path, digest: str, node_version: str, say: Progress) -> PortalBuild:
    app, logs = work / "app", work / "logs"
    logs.mkdir()
    say("npm ci")
    _run_step("npm ci", ["npm", "ci", "--no-audit", "--no-fund"], app, logs, digest)
    next_bin = app / "node_modules" / ".bin" / "next"
    if not next_bin.exists():
        raise EndstateError(f"npm ci installed no Next.js ({next_bin} is missing)")
    say("next build")
    _run_step("next build", [str(next_bin), "build"], app, logs, digest)
    build_id = _read_build_id(app)
    if build_id is None:
        raise EndstateError(f"next build succeeded but wrote no {app / '.next' / 'BUILD_ID'}")
    return PortalBuild(
        root=app,
        source_hash=digest,
        build_id=build_id,
        routes=app_routes(app),
        node_version=node_version,
        next_version=_next_version(app),
    )


def _run_step(step: str, argv: list[str], cwd: Path, logs: Path, digest: str) -> None:
    """Run one build step with its output in a log; a failure names the step, its exit code,
    the end of its output and the log, which is kept where the failed build will not be."""
    log = logs / (step.replace(" ", "-") + ".log")
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=tool_env(),
            start_new_session=True,
        )
        try:
            code = proc.wait()
        finally:
            end_group(proc)  # also its workers, and on Ctrl-C
    if code == 0:
        return
    kept = logs.parent.parent / "logs" / f"{digest[:16]}-{log.name}"
    kept.parent.mkdir(parents=True, exist_ok=True)
    os.replace(log, kept)
    lines = kept.read_text(encoding="utf-8", errors="replace").splitlines()
    shown = "\n".join("  " + line for line in _excerpt(lines))
    raise EndstateError(f"{step} failed (exit code {code}); full log: {kept}\n{shown}")


def _excerpt(lines: list[str]) -> list[str]:
    """The end of a failed step's output, after npm's own summary of the error when that came
    earlier (npm prints the reason first, then pages of usage)."""
    tail = lines[-TAIL_LINES:]
    first = next((i for i, line in enumerate(lines) if NPM_ERROR.match(line)), None)
    summary: list[str] = []
    if first is not None and first < len(lines) - TAIL_LINES:
        for line in lines[first : first + 8]:
            if line.strip() not in ("npm error", "npm ERR!"):
                summary.append(line)
            elif len(summary) > 1:  # the end of npm's first paragraph
                break
    return [*summary, "last lines of its output:", *tail] if summary else tail


def _read_build_id(app: Path) -> str | None:
    try:
        return (app / ".next" / "BUILD_ID").read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _next_version(app: Path) -> str:
    try:
        doc = json.loads((app / "node_modules" / "next" / "package.json").read_text("utf-8"))
    except (OSError, ValueError):
        return "unknown"
    version = doc.get("version") if isinstance(doc, dict) else None
    return version if isinstance(version, str) else "unknown"


def _complete(folder: Path, digest: str) -> PortalBuild | None:
    try:
        built = PortalBuild.load(folder)
    except EndstateError:
        return None
    return built if built.source_hash == digest else None


def _install(work: Path, final: Path, digest: str) -> PortalBuild:
    """Rename the finished build into place; a concurrent builder that got there first wins."""
    for _attempt in range(3):
        try:
            os.rename(work, final)
            return PortalBuild.load(final)
        except OSError:
            existing = _complete(final, digest)
            if existing is not None:
                return existing
            shutil.rmtree(final, ignore_errors=True)  # not a complete build: replace it
            time.sleep(0.1)
    raise EndstateError(f"cannot move the finished build into {final}")


def _remove_abandoned(root: Path) -> None:
    """Remove temporary build folders whose process is gone (an interrupted or killed build)."""
    for folder in root.glob(".*.tmp"):
        match = re.match(r"\.[0-9a-f]{16}-(\d+)-", folder.name)
        if match is None or _alive(int(match.group(1))):
            continue
        shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

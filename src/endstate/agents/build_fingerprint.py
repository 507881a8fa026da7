"""A command agent's build fingerprint, read from disk once per run: the files of its program
(under declared roots, caches left out, bounded), the interpreter that runs it and the Python
distributions that interpreter carries, and the git revision of its checkout with a dirty flag.

Only files are read and git is asked; the agent's own interpreter is never run outside its
sandbox. A `python` the harness provides is fingerprinted by the distributions of the harness's
environment, which is what such an agent imports."""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from endstate.agent_build import AgentBuild, Interpreter, ModelBuild, ProgramTree, SourceRevision
from endstate.errors import EndstateError
from endstate.sandbox.view import is_harness_python

DEFAULT_IGNORE = (
    "__pycache__",
    "*.pyc",
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
)
MAX_FILES = 5_000
MAX_BYTES = 256 * 1024 * 1024
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64")


def _under(path: Path, root: str) -> bool:
    return path == Path(root) or Path(root) in path.parents


def program_roots(argv: Sequence[str], declared: Sequence[Path] = ()) -> list[Path]:
    """The declared roots, else the folders the sandbox offers the program: the folder of each
    path in the command that exists outside the system's folders."""
    if declared:
        return [Path(p).expanduser().resolve() for p in declared]
    roots: list[Path] = []
    for i, arg in enumerate(argv):
        if arg.startswith("-") or (i == 0 and "/" not in arg):
            continue
        found = Path(arg).expanduser()
        if not found.exists():
            continue
        found = found.resolve()
        if any(_under(found, d) for d in SYSTEM_DIRS) or (i == 0 and is_harness_python(arg)):
            continue
        root = found if found.is_dir() else found.parent
        if root not in roots:
            roots.append(root)
    return roots


def _ignored(rel: Path, ignore: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(part, pattern) for part in rel.parts for pattern in ignore)


def program_tree(
    roots: Sequence[Path],
    ignore: Sequence[str] = DEFAULT_IGNORE,
    max_files: int = MAX_FILES,
    max_bytes: int = MAX_BYTES,
) -> ProgramTree:
    """Every file under the roots (a root may be a file), hashed in path order; beyond the
    bounds, a one-line error naming the root, the bound and how to narrow it."""
    whole = hashlib.sha256()
    files: dict[str, str] = {}
    total = 0
    for root in roots:
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in paths:
            rel = Path(root.name) / path.relative_to(root) if root.is_dir() else Path(root.name)
            if _ignored(rel, ignore):
                continue
            data = path.read_bytes()
            total += len(data)
            if len(files) >= max_files or total > max_bytes:
                raise EndstateError(
                    f"agent build fingerprint: {root} holds more than {max_files} files or "
                    f"{max_bytes // (1024 * 1024)} MiB; declare the program's own folder with "
                    "--agent-option build_root=DIR, or leave out more with build_ignore=GLOB"
                )
            digest = hashlib.sha256(data).hexdigest()
            key = rel.as_posix()
            files[key] = digest[:16]
            whole.update(key.encode() + b"\0" + digest.encode() + b"\n")
    return ProgramTree(
        roots=[str(r) for r in roots],
        ignored=list(ignore),
        sha256=whole.hexdigest(),
        files=files,
        bytes=total,
    )


def package_dirs() -> list[str]:
    """Where the harness's interpreter has its packages installed: its own site folders, not
    whatever a process has put on sys.path (a test runner's, a plug-in's), so every process of
    one installation reads the same set."""
    paths = sysconfig.get_paths()
    return list(dict.fromkeys(p for p in (paths["purelib"], paths["platlib"]) if p))


def _distributions() -> dict[str, str]:
    """The installed distributions: name -> version (the first of a name found)."""
    found: dict[str, str] = {}
    for dist in importlib.metadata.distributions(path=package_dirs()):
        name = (dist.metadata["Name"] or "").strip().lower().replace("_", "-")
        if name and name not in found:
            found[name] = dist.version
    return dict(sorted(found.items()))


def interpreter(argv0: str) -> Interpreter:
    """What runs the program. A `python` the harness provides: its version and distributions.
    Any other executable: its path and its file's sha256 (never run)."""
    if is_harness_python(argv0):
        dists = _distributions()
        listing = "\n".join(f"{k}=={v}" for k, v in dists.items()).encode()
        return Interpreter(
            executable="python (the harness's)",
            version=sys.version.split()[0],
            distributions=dists,
            distributions_sha256=hashlib.sha256(listing).hexdigest(),
        )
    found = shutil.which(argv0) if "/" not in argv0 else argv0
    if not found or not Path(found).is_file():
        return Interpreter(executable=argv0, version="not found")
    real = Path(os.path.realpath(found))
    return Interpreter(
        executable=str(real), version=hashlib.sha256(real.read_bytes()).hexdigest()[:16]
    )


def source_revision(roots: Sequence[Path]) -> SourceRevision | None:
    """The git revision of the checkout holding the first root, dirty if any root has changes
    not committed; None outside a checkout (or without git)."""
    if not roots or shutil.which("git") is None:
        return None
    where = roots[0] if roots[0].is_dir() else roots[0].parent

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(where), *args], capture_output=True, text=True, timeout=20
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    head = git("rev-parse", "HEAD")
    if head is None:
        return None
    status = git("status", "--porcelain", "--", *[str(r) for r in roots])
    return SourceRevision(revision=head.strip(), dirty=bool(status and status.strip()))


def command_build(
    argv: Sequence[str], roots: Sequence[Path] = (), ignore: Sequence[str] = DEFAULT_IGNORE
) -> AgentBuild:
    """A command agent's whole build fingerprint."""
    chosen = program_roots(argv, roots)
    return AgentBuild(
        program=program_tree(chosen, ignore),
        interpreter=interpreter(argv[0]) if argv else None,
        source=source_revision(chosen),
        # A command agent runs on the harness's machine: in the harness's image, when it has one
        # (the same variable the harness's own build reads, endstate.build).
        image_digest=os.environ.get("ENDSTATE_IMAGE_DIGEST") or None,
    )


def model_build(config: dict[str, Any]) -> AgentBuild | None:
    """A model agent's build from its pinned configuration: model, endpoint, decoding and the
    hash of its prompt texts (each built-in's `PROMPT_VERSION`); None for an agent with no
    model."""
    found = config.get("backend")
    backend: dict[str, Any] = found if isinstance(found, dict) else {}
    merged = {**backend, **{k: v for k, v in config.items() if v is not None}}
    model = merged.get("model")
    if not isinstance(model, str):
        return None
    decoding = {k: merged[k] for k in ("temperature", "max_tokens", "top_p") if k in merged}
    base_url = merged.get("base_url")
    return AgentBuild(
        model=ModelBuild(
            model=model,
            base_url=base_url if isinstance(base_url, str) else None,
            decoding=decoding,
            prompt_sha256=str(merged.get("prompt_version") or "none"),
        ),
        image_digest=os.environ.get("ENDSTATE_IMAGE_DIGEST") or None,
    )


def agent_build(agent: Any) -> AgentBuild | None:
    """The agent's build: its own `build()` where it has one (a command agent), else its model's
    from its configuration, else None (the null and replay agents are the harness's own)."""
    own = getattr(agent, "build", None)
    if callable(own):
        found = own()
        return found if isinstance(found, AgentBuild) else None
    config = agent.config()
    return model_build(config) if isinstance(config, dict) else None

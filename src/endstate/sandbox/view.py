"""What an agent's sandbox can see: a whitelist of read-only paths, and nothing of the harness.

The view is built from three lists: system directories (read-only), the agent's own program
(read-only: `--agent-mount`, or by default the folders of the files its command names) and
the agent runtime (this Python and Playwright, so Python agents can drive their browser).
Everything the harness must keep to itself — the endstate package (it ships the built-in
corpus), the checkout, corpora, run directories, caches, episode databases — is *sensitive*:
a requested mount inside it is refused, and a sensitive path that would show up inside a
mount is covered by an empty directory.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import stat
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from endstate.errors import EndstateError

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Only what programs commonly need from /etc; passwd and group are written for the sandbox.
ETC_ENTRIES = (
    "alternatives",
    "ca-certificates",
    "ca-certificates.conf",
    "chromium.d",
    "debian_version",
    "fonts",
    "gai.conf",
    "host.conf",
    "hosts",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "protocols",
    "services",
    "ssl",
    "timezone",
    "xdg",
)
OTHER_ENTRIES = ("/var/cache/fontconfig",)  # without it every browser start rebuilds font caches
RUNTIME_ROOT = Path("/opt/endstate")
RUNTIME_BIN = RUNTIME_ROOT / "bin"
RUNTIME_SITE = RUNTIME_ROOT / "site"
RUNTIME_DISTRIBUTIONS = ("playwright",)  # with everything they require
PYTHON_NAMES = ("python", "python3", f"python3.{sys.version_info.minor}")


@dataclass(frozen=True)
class Sensitive:
    path: Path
    label: str
    # True for a folder whose parts are each sensitive themselves (the checkout): a mount
    # inside it is judged by those parts, a mount holding it is refused.
    container: bool = False


@dataclass
class View:
    """Mounts in the order bubblewrap applies them; every source is read-only."""

    binds: list[tuple[Path, Path]] = field(default_factory=list)  # (source, destination)
    symlinks: list[tuple[str, Path]] = field(default_factory=list)  # (target, link)
    hidden: list[Path] = field(default_factory=list)  # covered by an empty directory
    agent_mounts: list[Path] = field(default_factory=list)
    python: Path | None = None  # the interpreter agents get as `python`
    argv: list[str] = field(default_factory=list)  # the command, with paths made absolute

    def describe(self) -> dict[str, object]:
        return {
            "agent_mounts": [str(p) for p in self.agent_mounts],
            "runtime": [str(dst) for _, dst in self.binds if _is_under(dst, RUNTIME_ROOT)]
            + ([str(self.python)] if self.python else []),
            "hidden": [str(p) for p in self.hidden],
        }


def _is_under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def harness_sensitive(extra: list[Sensitive]) -> list[Sensitive]:
    """Paths no agent may see, whatever it mounts: the package, its venv, its checkout."""
    import endstate

    package = Path(endstate.__file__).resolve().parent
    found = [Sensitive(package, "the endstate package")]
    try:
        dist = importlib.metadata.distribution("endstate")
        info = Path(str(dist.locate_file(""))).resolve()
        for name in os.listdir(info) if info.is_dir() else []:
            if name.startswith("endstate-") and name.endswith((".dist-info", ".egg-info")):
                found.append(Sensitive(info / name, "the endstate package metadata"))
    except importlib.metadata.PackageNotFoundError:
        pass
    if sys.prefix != sys.base_prefix:
        found.append(Sensitive(Path(sys.prefix).resolve(), "the harness's virtual environment"))
    checkout = package.parent.parent
    if (checkout / "pyproject.toml").is_file() and (package.parent.name == "src"):
        for entry in sorted(checkout.iterdir()):
            if entry.name != "examples":  # the example agents are meant to be run
                found.append(Sensitive(entry.resolve(), "the endstate checkout"))
        found.append(Sensitive(checkout.resolve(), "the endstate checkout", container=True))
    return found + [Sensitive(s.path.resolve(), s.label, s.container) for s in extra]


def _existing(path: str) -> Path | None:
    candidate = Path(path).expanduser()
    return candidate.resolve() if candidate.exists() else None


def _runtime_python() -> Path:
    base = getattr(sys, "_base_executable", None) or sys.executable
    return Path(os.path.realpath(base))


def is_harness_python(command: str) -> bool:
    """Whether a command's program is the harness's own Python (by name or by its real path)."""
    if command in PYTHON_NAMES:
        return True
    found = shutil.which(command) if "/" not in command else command
    if not found:
        return False
    real = Path(os.path.realpath(found))
    return real in (_runtime_python(), Path(os.path.realpath(sys.executable)))


def _distribution_closure(names: tuple[str, ...]) -> list[importlib.metadata.Distribution]:
    seen: dict[str, importlib.metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        seen[key] = dist
        for req in dist.requires or []:
            if "extra ==" in req:
                continue
            bare = req.split(";")[0].strip()
            for stop in "<>=!~[ (":
                bare = bare.split(stop)[0]
            todo.append(bare)
    return list(seen.values())


def _runtime_entries() -> list[Path]:
    """Top-level files and folders of Playwright and its requirements in site-packages."""
    entries: set[Path] = set()
    for dist in _distribution_closure(RUNTIME_DISTRIBUTIONS):
        root = Path(str(dist.locate_file(""))).resolve()
        for file in dist.files or []:
            parts = Path(str(file)).parts
            if not parts or parts[0] == ".." or parts[0] == "__pycache__":
                continue
            top = root / parts[0]
            if top.exists():
                entries.add(top)
    return sorted(entries)


def _check_mount(mount: Path, sensitive: list[Sensitive]) -> None:
    for s in sensitive:
        if _is_under(s.path, mount) if s.container else _is_under(mount, s.path):
            raise EndstateError(
                f"--agent-mount {mount}: lies in or holds {s.label} ({s.path}); "
                "the agent may not see it — mount only the agent's own folder"
            )


def _check_readable(mount: Path) -> None:
    """The sandbox's own uid is nobody's: a folder it cannot read is a clear error now, not a
    puzzling failure inside every attempt."""
    mode = mount.stat().st_mode
    needed = (stat.S_IROTH | stat.S_IXOTH) if mount.is_dir() else stat.S_IROTH
    if mode & needed != needed:
        raise EndstateError(
            f"--agent-mount {mount}: not readable by the sandbox's unprivileged user "
            f"(mode {stat.filemode(mode)}); make it readable (chmod o+rX) or mount another folder"
        )


def build_view(
    command: list[str],
    mounts: list[Path] | None,
    sensitive: list[Sensitive],
    foreign_uid: bool = False,
) -> View:
    """The sandbox's filesystem for this command. Raises EndstateError on a forbidden mount.

    `foreign_uid`: the agent runs as a uid of its own, so its mounts must be world-readable."""
    view = View()
    argv = list(command)
    defaults: list[Path] = []
    if argv and is_harness_python(argv[0]):
        view.python = _runtime_python()
        argv[0] = str(RUNTIME_BIN / "python3")
    elif argv and "/" in argv[0] and (found := _existing(argv[0])):
        argv[0] = str(found)
        defaults.append(found.parent)
    for i, arg in enumerate(argv[1:], start=1):
        if arg.startswith("-"):
            continue
        found = _existing(arg)
        if found is not None and not any(_is_under(found, Path(d)) for d in SYSTEM_DIRS):
            argv[i] = str(found)
            defaults.append(found if found.is_dir() else found.parent)
    view.argv = argv
    chosen = [m.expanduser().resolve() for m in mounts] if mounts else defaults
    for mount in chosen:
        if not mount.exists():
            raise EndstateError(f"--agent-mount {mount}: no such file or folder")
        _check_mount(mount, sensitive)
        if foreign_uid:
            _check_readable(mount)
        if mount not in view.agent_mounts:
            view.agent_mounts.append(mount)
    if view.python is None and any(a in PYTHON_NAMES for a in argv[:1]):
        view.python = _runtime_python()
    view.python = view.python or _runtime_python()  # `python` is always offered
    _add_runtime(view)
    for mount in view.agent_mounts:
        view.binds.append((mount, mount))
    covered = [Path(d) for d in SYSTEM_DIRS] + view.agent_mounts + [p for p, _ in view.binds]
    for s in sensitive:
        if s.container:
            continue
        if any(_is_under(s.path, root) for root in covered) and s.path not in view.hidden:
            view.hidden.append(s.path)
    return view


def _add_runtime(view: View) -> None:
    assert view.python is not None
    prefix = Path(sys.base_prefix).resolve()
    if not any(_is_under(prefix, Path(d)) for d in SYSTEM_DIRS):
        view.binds.append((prefix, prefix))
        paths = sysconfig.get_paths(vars={"base": str(prefix), "platbase": str(prefix)})
        for key in ("purelib", "platlib"):
            site = Path(paths[key])
            if site.exists() and site not in view.hidden:
                view.hidden.append(site)  # the interpreter's own packages are not offered
    for entry in _runtime_entries():
        view.binds.append((entry, RUNTIME_SITE / entry.name))
    for name in PYTHON_NAMES:
        view.symlinks.append((str(view.python), RUNTIME_BIN / name))

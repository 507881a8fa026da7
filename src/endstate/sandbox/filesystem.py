"""What a sandbox sees: its file-system mounts (bubblewrap arguments) and its environment.

Built once per sandbox from the run's `SandboxSpec`; nothing here starts a process.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from endstate.sandbox.gateway import Gateway
from endstate.sandbox.spec import (
    BROWSER_POLICY,
    BROWSER_STORAGE,
    CONFINE,
    HOME,
    INSIDE,
    SECCOMP,
    SUPERVISOR,
    SandboxSpec,
)
from endstate.sandbox.view import ETC_ENTRIES, OTHER_ENTRIES, SYSTEM_DIRS


def ancestors(path: Path) -> list[Path]:
    return [p for p in reversed(path.parents) if p != Path("/")]


def write_file(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    path.chmod(0o644)
    return path


class Mounts:
    """bubblewrap mount arguments, creating parent folders readable by the sandbox user."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self.made: set[Path] = {Path("/")}

    def dir(self, path: Path, perms: str = "0755") -> None:
        for p in [*ancestors(path), path]:
            if p not in self.made:
                self.args += ["--perms", perms, "--dir", str(p)]
                self.made.add(p)

    def bind(self, source: Path, dest: Path) -> None:
        self.dir(dest.parent)
        self.args += ["--ro-bind", str(source), str(dest)]
        self.made.add(dest)

    def symlink(self, target: str, link: Path) -> None:
        self.dir(link.parent)
        self.args += ["--symlink", target, str(link)]
        self.made.add(link)

    def writable(self, source: Path, dest: Path) -> None:
        self.dir(dest.parent)
        self.args += ["--bind", str(source), str(dest)]
        self.made.add(dest)

    def tmpfs(self, path: Path, size: int, perms: str = "1777") -> None:
        self.dir(path.parent)
        self.args += ["--perms", perms, "--size", str(size), "--tmpfs", str(path)]
        self.made.add(path)

    def cover(self, path: Path) -> None:
        """An empty, read-only folder over `path`: nothing to see, nothing to write."""
        self.tmpfs(path, 4096, perms="0555")
        self.args += ["--remount-ro", str(path)]


@dataclass(frozen=True)
class Scratch:
    """One writable path of the sandbox: a tmpfs with a byte and an inode quota, mounted by
    `quota_mounts.py` on `folder` (in the staging folder) and bound at `dest`."""

    dest: Path
    folder: Path
    size: int
    inodes: int
    mode: str = "1777"


def scratch_space(spec: SandboxSpec, staging: Path) -> list[Scratch]:
    lim = spec.limits
    made = [
        Scratch(Path("/tmp"), staging / "scratch" / "tmp", lim.tmp_bytes, lim.tmp_inodes),
        Scratch(Path("/dev/shm"), staging / "scratch" / "shm", lim.shm_bytes, lim.shm_inodes),
        Scratch(Path(HOME), staging / "scratch" / "home", lim.tmp_bytes, lim.tmp_inodes),
    ]
    for scratch in made:
        scratch.folder.mkdir(parents=True, exist_ok=True)
    return made


def pty_folder(staging: Path) -> Path:
    """Where `quota_mounts.py` mounts the sandbox's own devpts, bound at its /dev/pts."""
    folder = staging / "scratch" / "pts"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def filesystem_args(
    spec: SandboxSpec, staging: Path, config: Path, gateway: Gateway | None
) -> list[str]:
    m = Mounts()
    for name in SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            m.symlink(os.readlink(path), path)
        elif path.is_dir():
            m.bind(path, path)
    m.dir(Path("/etc"))
    for name in ETC_ENTRIES:
        path = Path("/etc") / name
        if path.is_symlink():
            m.symlink(os.readlink(path), path)
        elif path.exists():
            m.bind(path, path)
    for name in OTHER_ENTRIES:
        if Path(name).is_dir():
            m.bind(Path(name), Path(name))
    uid = 1000
    m.bind(
        write_file(staging, "passwd", f"agent:x:{uid}:{uid}:agent:{HOME}:/bin/sh\n"),
        Path("/etc/passwd"),
    )
    m.bind(write_file(staging, "group", f"agent:x:{uid}:\n"), Path("/etc/group"))
    m.bind(
        write_file(staging, "policy.json", json.dumps(BROWSER_POLICY)),
        Path("/etc/chromium/policies/managed/endstate.json"),
    )
    m.args += ["--proc", "/proc", "--dev", "/dev"]
    if spec.hardened:  # its own ptys, at most `limits.ptys` (a device bind: ptys are devices)
        m.args += ["--dev-bind", str(pty_folder(staging)), "/dev/pts"]
    for scratch in scratch_space(spec, staging):
        if spec.hardened:
            m.writable(scratch.folder, scratch.dest)
        else:  # bubblewrap's own tmpfs: a byte size, no inode quota
            m.tmpfs(scratch.dest, scratch.size)
    m.bind(SUPERVISOR, INSIDE / "supervisor.py")
    m.bind(BROWSER_STORAGE, INSIDE / "browser_storage.py")
    m.bind(CONFINE, INSIDE / "confine.py")
    m.bind(SECCOMP, INSIDE / "seccomp.py")
    m.bind(config, INSIDE / "config.json")
    if gateway is not None:
        m.bind(gateway.folder, INSIDE / "net")
    if spec.browser and not any(Path(spec.browser).is_relative_to(d) for d in SYSTEM_DIRS):
        folder = Path(spec.browser).resolve().parent
        m.bind(folder, folder)
    for source, dest in spec.view.binds:
        m.bind(source, dest)
    for target, link in spec.view.symlinks:
        m.symlink(target, link)
    for hidden in spec.view.hidden:
        m.cover(hidden)
    if spec.hardened:
        # bubblewrap's own root and /dev are tmpfs without any quota, and, in a user
        # namespace, the agent's own: read-only, the scratch space is all it can write.
        m.args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    return m.args


def agent_env(spec: SandboxSpec, sandboxed: bool, workdir: Path) -> dict[str, str]:
    env = dict(spec.env)
    if not sandboxed:
        env.update(HOME=str(workdir), TMPDIR=str(workdir))
    else:
        env.update(
            PATH="/opt/endstate/bin:/usr/local/bin:/usr/bin:/bin",
            HOME=HOME,
            TMPDIR="/tmp",
            USER="agent",
            PYTHONPATH="/opt/endstate/site",
            PYTHONNOUSERSITE="1",
            PYTHONDONTWRITEBYTECODE="1",
        )
        port = spec.network.egress_port if spec.network else None
        if port is not None:
            proxy = f"http://127.0.0.1:{port}"
            local = "127.0.0.1,localhost,::1"
            for name in ("HTTPS_PROXY", "HTTP_PROXY"):
                env[name] = env[name.lower()] = proxy
            env["NO_PROXY"] = env["no_proxy"] = local
    return env

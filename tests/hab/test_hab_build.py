"""Building and serving the HealthAdminBench portals.

The first half runs everywhere, on tiny fake app trees (a failing `npm ci` needs npm, nothing
else): refusals, the source hash, the cache, the errors a user sees, and that a server's whole
process group ends however it stops. The second half builds the real app from ../shared/peers
once per session (see conftest.py) and serves it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from endstate.errors import EndstateError
from endstate.hab.build import (
    PortalBuild,
    build_portals,
    builds_dir,
    find_build,
    source_hash,
)
from endstate.hab.server import PortalServer
from endstate.hab.source import app_routes

START_PAGES = ["/emr/worklist", "/payer-a/login", "/payer-b/login", "/fax-portal"]


# -- helpers ---------------------------------------------------------------------------------


def fake_app(root: Path) -> Path:
    """The smallest tree that passes for the portals app: package.json with next, and app/."""
    page = root / "app" / "emr" / "worklist" / "page.tsx"
    page.parent.mkdir(parents=True)
    page.write_text("export default function Page() { return null; }\n")
    manifest = {"name": "fake-portals", "version": "1.0.0", "dependencies": {"next": "16.1.6"}}
    (root / "package.json").write_text(json.dumps(manifest))
    return root


def fake_build(cache: Path, source: Path, next_script: str | None = None) -> PortalBuild:
    """A complete build of `source` in `cache`, made by hand; `next_script` stands in for
    `node_modules/.bin/next`."""
    digest = source_hash(source)
    folder = builds_dir(cache) / digest[:16]
    app = folder / "app"
    (app / ".next").mkdir(parents=True)
    (app / ".next" / "BUILD_ID").write_text("fake-build\n")
    built = PortalBuild(app, digest, "fake-build", ["/emr/worklist"], "v20.0.0", "16.1.6")
    (folder / "build.json").write_text(json.dumps(built.record()))
    if next_script is not None:
        script = app / "node_modules" / ".bin" / "next"
        script.parent.mkdir(parents=True)
        script.write_text("#!/bin/sh\n" + next_script)
        script.chmod(0o755)
    return built


def stub_bin(folder: Path, *names: str, version: str = "v20.0.0") -> Path:
    """A PATH folder holding stub executables (they print a Node-like version)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        stub = folder / name
        stub.write_text(f"#!/bin/sh\necho {version}\n")
        stub.chmod(0o755)
    return folder


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "endstate", *args],
        capture_output=True,
        text=True,
        env=env if env is not None else dict(os.environ),
        timeout=600,
    )


def group_members(pgid: int) -> list[int]:
    """Live processes of process group `pgid` (psutil if installed, else a /proc scan)."""
    try:
        import psutil
    except ImportError:
        found = []
        for entry in Path("/proc").iterdir():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()  # state, ppid, pgrp, ...
            if entry.name.isdigit() and int(fields[2]) == pgid and fields[0] != "Z":
                found.append(int(entry.name))
        return found
    members = []
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                members.append(proc.pid)
        except (ProcessLookupError, psutil.Error):
            continue
    return members


# -- the source tree -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("breakage", "missing"),
    [
        ("package.json", "no package.json"),
        ("next", "no 'next' dependency"),
        ("app", "no app/ directory"),
    ],
)
def test_a_tree_that_is_not_the_app_is_refused_naming_what_is_missing(
    tmp_path: Path, breakage: str, missing: str
) -> None:
    source = fake_app(tmp_path / "src")
    if breakage == "package.json":
        (source / "package.json").unlink()
    elif breakage == "next":
        (source / "package.json").write_text('{"dependencies": {"react": "18.3.1"}}')
    else:
        shutil.rmtree(source / "app")
    for attempt in (source_hash, lambda s: build_portals(s, tmp_path / "cache")):
        with pytest.raises(EndstateError) as caught:
            attempt(source)
        message = str(caught.value)
        assert str(source) in message and missing in message and "\n" not in message
    assert not (tmp_path / "cache").exists()  # refused before anything was written


def test_source_hash_ignores_build_output_and_follows_the_sources(tmp_path: Path) -> None:
    source = fake_app(tmp_path / "src")
    before = source_hash(source)
    for junk in ("node_modules/next/index.js", ".next/BUILD_ID", ".git/HEAD"):
        (source / junk).parent.mkdir(parents=True, exist_ok=True)
        (source / junk).write_text("anything")
    assert source_hash(source) == before
    page = source / "app" / "emr" / "worklist" / "page.tsx"
    page.write_text(page.read_text() + "// edited\n")
    edited = source_hash(source)
    assert edited != before
    page.rename(page.with_name("Page.tsx"))  # same bytes, another name
    assert source_hash(source) not in (before, edited)


def test_routes_come_from_the_page_files_of_app(tmp_path: Path) -> None:
    app = fake_app(tmp_path / "src")
    for page in (
        "app/page.tsx",
        "app/payer-a/login/page.tsx",
        "app/emr/referral/[id]/auth-letter/page.tsx",
        "app/(group)/fax-portal/page.tsx",
        "app/_private/page.tsx",
        "app/components/Header.tsx",
        "emr/app/dme/page.tsx",  # outside app/: not a route
    ):
        (app / page).parent.mkdir(parents=True, exist_ok=True)
        (app / page).write_text("export default function P() { return null; }\n")
    assert app_routes(app) == [
        "/",
        "/emr/referral/[id]/auth-letter",
        "/emr/worklist",
        "/fax-portal",
        "/payer-a/login",
    ]


# -- the cache -------------------------------------------------------------------------------


def test_a_complete_cached_build_is_reused_without_npm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = fake_app(tmp_path / "src")
    built = fake_build(tmp_path / "cache", source)

    def no_subprocess(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cached build ran a subprocess")

    monkeypatch.setattr(subprocess, "Popen", no_subprocess)
    monkeypatch.setattr(subprocess, "run", no_subprocess)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    steps: list[str] = []
    assert build_portals(source, tmp_path / "cache", progress=steps.append) == built
    assert steps[-1].startswith("reusing the build in")
    assert find_build(tmp_path / "cache") == built


def test_a_half_finished_build_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = fake_app(tmp_path / "src")
    built = fake_build(tmp_path / "cache", source)
    (built.root.parent / "build.json").unlink()  # as if interrupted before the marker
    assert find_build(tmp_path / "cache") is None
    with pytest.raises(EndstateError, match=r"no build\.json"):
        PortalBuild.load(built.root.parent)
    monkeypatch.setenv("PATH", str(stub_bin(tmp_path / "bin", "node")))
    with pytest.raises(EndstateError, match="'npm' was not found"):  # it is built again
        build_portals(source, tmp_path / "cache")


def test_without_npm_the_cli_says_so_in_one_line(tmp_path: Path) -> None:
    source = fake_app(tmp_path / "src")
    env = dict(os.environ, PATH=str(stub_bin(tmp_path / "bin", "node")))
    done = run_cli(
        "env", "hab", "setup", "--source", str(source), "--cache-dir", str(tmp_path / "c"), env=env
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: Node.js 20 and npm are needed to build the portals: 'npm' was not found on PATH"
    ]


def test_a_node_older_than_18_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(stub_bin(tmp_path / "bin", "node", "npm", version="v16.20.2")))
    with pytest.raises(EndstateError, match=r"Node\.js v16\.20\.2 is too old .* 18 or later"):
        build_portals(fake_app(tmp_path / "src"), tmp_path / "cache")


def test_serve_without_a_build_says_to_run_setup_first(tmp_path: Path) -> None:
    done = run_cli("env", "hab", "serve", "--cache-dir", str(tmp_path / "none"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert "run `endstate env hab setup --source PATH` first" in done.stderr


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_a_failing_step_is_named_with_its_exit_code_and_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))  # offline, and fast
    source = fake_app(tmp_path / "src")
    (source / "package-lock.json").write_text("this is not a lock file {")
    cache = tmp_path / "cache"
    with pytest.raises(EndstateError) as caught:
        build_portals(source, cache)
    headline, *tail = str(caught.value).splitlines()
    assert headline.startswith("npm ci failed (exit code ")
    log = Path(headline.split("full log: ", 1)[1])
    assert log.is_file() and log.parent == builds_dir(cache) / "logs"
    assert "npm error code" in tail[0]  # npm's own reason, printed before pages of usage
    assert "  last lines of its output:" in tail and len(tail) <= 8 + 1 + 15
    assert find_build(cache) is None
    assert [p.name for p in builds_dir(cache).iterdir()] == ["logs"]  # no half-built folder


# -- the server's processes ------------------------------------------------------------------


@pytest.fixture
def with_node_stub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("node") is None:
        monkeypatch.setenv("PATH", f"{stub_bin(tmp_path / 'bin', 'node')}:{os.environ['PATH']}")


@pytest.mark.usefixtures("with_node_stub")
def test_a_server_that_never_answers_is_ended_with_its_whole_group(tmp_path: Path) -> None:
    source = fake_app(tmp_path / "src")
    built = fake_build(
        tmp_path / "cache", source, "echo still warming up\nsleep 300 &\nsleep 300\n"
    )
    server = PortalServer(built, timeout=1.5)
    pids: list[int] = []
    original = server._wait_ready

    def remember(proc: subprocess.Popen[bytes]) -> None:
        pids.append(proc.pid)
        original(proc)

    server._wait_ready = remember  # type: ignore[method-assign]
    with pytest.raises(EndstateError) as caught:
        server.start()
    assert "did not answer 200" in str(caught.value) and "still warming up" in str(caught.value)
    assert server.pid is None and group_members(pids[0]) == []


@pytest.mark.usefixtures("with_node_stub")
def test_a_server_that_exits_reports_its_output(tmp_path: Path) -> None:
    source = fake_app(tmp_path / "src")
    built = fake_build(tmp_path / "cache", source, "echo 'Error: listen EADDRINUSE'\nexit 3\n")
    with pytest.raises(EndstateError) as caught:
        PortalServer(built).start()
    assert "exited (code 3)" in str(caught.value) and "EADDRINUSE" in str(caught.value)


@pytest.mark.usefixtures("with_node_stub")
def test_ctrl_c_while_starting_leaves_no_process(tmp_path: Path) -> None:
    source = fake_app(tmp_path / "src")
    built = fake_build(tmp_path / "cache", source, "sleep 300 &\nsleep 300\n")
    server = PortalServer(built)
    pids: list[int] = []

    def interrupted(proc: subprocess.Popen[bytes]) -> None:
        pids.append(proc.pid)
        raise KeyboardInterrupt

    server._wait_ready = interrupted  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        server.start()
    assert group_members(pids[0]) == []


def test_a_server_needs_its_ready_page_in_the_build(tmp_path: Path) -> None:
    built = fake_build(tmp_path / "cache", fake_app(tmp_path / "src"))
    with pytest.raises(EndstateError, match="no page /nowhere"):
        PortalServer(built, ready_path="/nowhere")


# -- the real portals (../shared/peers) ------------------------------------------------------


def test_the_build_is_complete_and_cached(
    portal_build: PortalBuild, portals_source: Path, hab_cache: Path
) -> None:
    assert set(START_PAGES) <= set(portal_build.routes)
    assert "/emr/referral/[id]" in portal_build.routes
    assert portal_build.next_version.split(".")[0].isdigit()
    assert PortalBuild.load(portal_build.root.parent) == portal_build
    assert find_build(hab_cache) is not None
    began = time.monotonic()
    again = build_portals(portals_source, hab_cache)
    assert time.monotonic() - began < 2.0
    assert again == portal_build


def test_the_server_serves_the_start_pages_and_leaves_nothing(portal_build: PortalBuild) -> None:
    with PortalServer(portal_build) as server:
        pid = server.pid
        assert pid is not None and group_members(pid)
        for path in START_PAGES:
            assert httpx.get(server.url(path), trust_env=False).status_code == 200, path
    assert server.pid is None
    assert group_members(pid) == []


def test_setup_prints_the_route_count(
    portal_build: PortalBuild, portals_source: Path, hab_cache: Path
) -> None:
    done = run_cli(
        "env", "hab", "setup", "--source", str(portals_source), "--cache-dir", str(hab_cache)
    )
    assert done.returncode == 0, done.stderr
    assert f"routes   {len(portal_build.routes)}\n" in done.stdout
    assert f"source   {portal_build.source_hash}\n" in done.stdout


def test_serve_prints_the_start_pages_and_stops_on_sigterm(
    portal_build: PortalBuild, hab_cache: Path
) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "endstate", "env", "hab", "serve", "--cache-dir", str(hab_cache)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        for line in proc.stdout:
            lines.append(line.rstrip())
            if line.startswith("Serving"):
                break
        pages = {x.split()[0]: x.split()[1] for x in lines if x.startswith("  ")}
        assert set(pages) == {"ehr", "payer-a", "payer-b", "fax"}
        assert pages["ehr"].endswith("/emr/worklist")
        assert httpx.get(pages["payer-b"], trust_env=False).status_code == 200
        server_pids = children_of(proc.pid)
        assert server_pids and all(group_members(p) for p in server_pids)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        assert all(group_members(p) == [] for p in server_pids)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def children_of(parent: int) -> list[int]:
    """`parent`'s child processes (for `serve`: the server, leading its own group)."""
    try:
        import psutil
    except ImportError:
        tasks = Path(f"/proc/{parent}/task")
        return [int(p) for t in tasks.iterdir() for p in (t / "children").read_text().split()]
    return [child.pid for child in psutil.Process(parent).children()]

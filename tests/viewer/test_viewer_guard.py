"""What the viewer refuses: paths out of the run, writes, foreign hosts, bad runs, bad hosts."""

from __future__ import annotations

import http.client
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Page

from agents.browser_harness import Browser

from .conftest import Viewer, cli_env, view_command


def raw_request(url: str, path: str, method: str = "GET", host: str | None = None) -> int:
    """Send `path` exactly as given (no client normalisation of `..`), return the status."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=host is not None)
        if host is not None:
            conn.putheader("Host", host)
        conn.endheaders()
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.mark.parametrize(
    "path",
    [
        "/files/../../etc/passwd",
        "/files/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/files/..%2f..%2f..%2fetc%2fpasswd",
        "/files//etc/passwd",
        "/files/traces/%00",
        "/files/traces/leak",
    ],
)
def test_files_outside_the_run_are_refused(viewer: Viewer, viewed_run: Path, path: str) -> None:
    leak = viewed_run / "traces" / "leak"
    if not leak.is_symlink():
        leak.symlink_to("/etc/passwd")  # a link inside the run that leads out of it
    assert raw_request(viewer.url, "/files/manifest.json") == 200
    assert raw_request(viewer.url, path) == 404


def test_the_viewer_is_read_only_and_answers_only_loopback_hosts(viewer: Viewer) -> None:
    assert raw_request(viewer.url, "/", method="POST") == 405
    assert raw_request(viewer.url, "/files/records.jsonl", method="PUT") == 405
    assert raw_request(viewer.url, "/", host="evil.example") == 421
    assert raw_request(viewer.url, "/", host=f"localhost:{urlsplit(viewer.url).port}") == 200


def test_traversal_in_the_browser_ends_in_not_found(browser: Browser, viewer: Viewer) -> None:
    async def go(page: Page) -> tuple[int, str]:
        response = await page.goto(f"{viewer.url}files/../../etc/passwd")
        assert response is not None
        return response.status, await page.content()

    status, body = browser.run(go)
    assert status == 404 and "root:" not in body


def view(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        view_command(*args, "--no-open"), capture_output=True, text=True, env=cli_env(), timeout=60
    )


def test_the_cli_refuses_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    done = view(str(tmp_path))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [f"error: {tmp_path}: no manifest.json; not a run directory"]


@pytest.mark.parametrize("host", ["0.0.0.0", "example.org"])
def test_the_cli_refuses_a_host_that_is_not_loopback(viewed_run: Path, host: str) -> None:
    done = view(str(viewed_run), "--host", host)
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"error: --host {host}: the viewer listens only on a loopback address")


def test_a_malformed_record_is_one_clear_error_naming_the_file(
    browser: Browser, viewed_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(viewed_run, run, symlinks=True)
    records = run / "records.jsonl"
    served = Viewer(run)  # a sound run at first; then a line goes bad while it is served
    try:
        records.write_text('{"task_id": "half a record"}\n' + records.read_text())

        async def go(page: Page) -> tuple[int, str]:
            response = await page.goto(served.url)
            assert response is not None
            return response.status, await page.inner_text("#error")

        status, shown = browser.run(go)
    finally:
        served.stop()
    assert status == 500 and shown == f"{records}: line 1 is not a task record"
    done = view(str(run))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"error: {records}: line 1 is not a task record"]

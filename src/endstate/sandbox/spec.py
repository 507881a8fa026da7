"""What every sandbox of a run shares: where things are inside one, the browser it runs, and
the run's `SandboxSpec`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from endstate.sandbox.gateway import Network
from endstate.sandbox.platform import SandboxSupport
from endstate.sandbox.policy import SandboxLimits
from endstate.sandbox.view import View

IsolationMode = Literal["sandbox", "none"]
SUPERVISOR = Path(__file__).with_name("supervisor.py")
# Inside the sandbox beside the supervisor: the agent's confinement (stdlib only, by path).
CONFINE = Path(__file__).with_name("confine.py")
SECCOMP = Path(__file__).with_name("seccomp.py")
# Run by the harness just before bubblewrap: the writable file systems, with inode quotas.
QUOTA_MOUNTS = Path(__file__).with_name("quota_mounts.py")
# Read by the supervisor by file (stdlib only): the agent's browser storage, before teardown.
BROWSER_STORAGE = Path(__file__).with_name("browser_storage.py")
STORAGE_BYTES = 32 * 1024 * 1024  # a larger storage read is refused, not carried
# localStorage of an agent's own browser: origin -> [key, value] pairs in the browser's order.
BrowserStorage = dict[str, list[list[str]]]
INSIDE = Path("/run/endstate")
HOME = "/home/agent"
CDP_PORT = 9222  # inside the sandbox's own network namespace: no clash between sandboxes
UID_BASE = 2_000_000_000
TEARDOWN_SECONDS = 60.0
AGENT_ID = 1000  # the uid the agent sees inside a user namespace (unprivileged harness)
# Much the set Playwright launches Chromium with: nothing runs that an agent did not ask for.
BROWSER_FLAGS = (
    "--headless=new",
    "--no-startup-window",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-component-extensions-with-background-pages",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-features=Translate,MediaRouter,OptimizationHints,LensOverlay,"
    "DialMediaRouteProvider,GlobalMediaControls,CertificateTransparencyComponentUpdater",
    "--disable-hang-monitor",
    "--disable-sync",
    "--metrics-recording-only",
    "--mute-audio",
    "--hide-scrollbars",
    "--no-default-browser-check",
    "--no-first-run",
    "--password-store=basic",
    "--use-mock-keychain",
)
BROWSER_POLICY = {
    # Only the web: no local files, no browser internals, no source views.
    "URLBlocklist": ["file://*", "chrome://*", "view-source:*", "ftp://*", "filesystem:*"],
    "AllowFileSelectionDialogs": False,
    "DownloadDirectory": f"{HOME}/Downloads",
    "PromptForDownloadLocation": False,
}


@dataclass
class SandboxSpec:
    """Everything that is the same for every sandbox of a run."""

    isolation: IsolationMode
    support: SandboxSupport | None
    view: View
    env: dict[str, str]
    limits: SandboxLimits
    network: Network | None  # None: the host's network (no sandbox)
    browser: str | None  # the Chromium executable agents get, or None for no browser
    # Origins whose localStorage the harness reads from the agent's browser after the agent
    # ends (an environment that keeps its end state there); the supervisor then also keeps
    # the time limit itself, so a timed-out attempt is still read.
    storage_origins: tuple[str, ...] = ()
    # The supervisor out of the agent's reach, the agent's seccomp filter and Landlock
    # domain, inode quotas on the writable paths. False only in tests, to show what each
    # stops (the CLI has no way to turn it off); the manifest says when it was off.
    hardened: bool = True

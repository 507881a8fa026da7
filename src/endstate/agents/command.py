"""Any executable as the system under test, treated as an adversary.

By default each attempt runs in its own sandbox (bubblewrap namespaces, its own unprivileged
uid, a read-only view with nothing of the harness in it, a network that reaches only the
environment's agent-facing ports) with its own Chromium, and the whole sandbox is gone before
the end state is read. With `--isolation none` it is a plain child process, and every report
says so. Either way it gets one JSON object on stdin (projection, start URLs, the CDP endpoint
of its own browser) and prints its final JSON message on stdout.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from endstate.agent_build import AgentBuild
from endstate.agents.agent_output import read_final_line
from endstate.agents.base import AgentClaim, AgentOutcome, AttemptContext, RunResources
from endstate.agents.build_fingerprint import DEFAULT_IGNORE, command_build
from endstate.errors import EndstateError
from endstate.manifest import Isolation
from endstate.records import SandboxFacts
from endstate.sandbox.policy import SandboxLimits

if TYPE_CHECKING:
    from playwright.async_api import Page

    from endstate.sandbox.launch import SandboxResult
    from endstate.sandbox.pool import SandboxPool
    from endstate.sandbox.spec import SandboxSpec

PASSED_THROUGH = ("PATH", "LANG", "LC_ALL", "TZ")
IsolationMode = Literal["sandbox", "none"]


def agent_input(ctx: AttemptContext, cdp_endpoint: str | None) -> dict[str, Any]:
    """Exactly what the command receives on stdin."""
    return {
        "projection": ctx.projection.model_dump(),
        "start_urls": ctx.start_urls,
        "cdp_endpoint": cdp_endpoint,
        "max_steps": ctx.max_steps,
        "time_limit": ctx.time_limit,
    }


def hardening(spec: SandboxSpec) -> dict[str, Any] | str:
    """What keeps the agent from the supervisor and the kernel, for the manifest."""
    from endstate.sandbox.seccomp import Unsupported, describe

    if not spec.hardened:
        return "OFF (a test-only setting): no seccomp filter, supervisor reachable, no inode quota"
    landlock = spec.support.landlock if spec.support else None
    try:
        seccomp: dict[str, object] | str = describe(os.uname().machine)
    except Unsupported as exc:
        seccomp = str(exc)
    return {
        "supervisor": "not dumpable: no ptrace, /proc/1/mem or /proc/1/fd for the agent; "
        "signals from inside dropped",
        "seccomp": seccomp,
        "landlock": f"ABI {landlock}: ptrace"
        + (", signals and abstract sockets" if landlock >= 6 else "")
        + " scoped to the agent's own processes; no device nodes"
        if landlock
        else "not offered by this kernel",
        "read-only": "the sandbox's root and /dev; writable only /tmp, /dev/shm and the home",
    }


def browser_version(executable: str) -> str | None:
    """What `chromium --version` says: the agents' browser is pinned like the shared one."""
    try:
        done = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


class CommandAgent:
    kind = "command"
    scored = True
    uses_page = False

    def __init__(
        self,
        command: str,
        pass_env: tuple[str, ...] = (),
        isolation: IsolationMode = "sandbox",
        mounts: tuple[Path, ...] = (),
        browser: bool = True,
        limits: SandboxLimits | None = None,
        egress: tuple[str, ...] = (),
        hardened: bool = True,
        build_root: tuple[Path, ...] = (),
        build_ignore: tuple[str, ...] = DEFAULT_IGNORE,
    ) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise EndstateError(f"command agent {command!r}: {exc}") from None
        if not self.argv:
            raise EndstateError("command agent: empty command")
        if isolation not in ("sandbox", "none"):
            raise EndstateError(f"--isolation {isolation!r}: expected sandbox or none")
        self.name = command
        self.pass_env = pass_env
        self.mode: IsolationMode = isolation
        self.mounts = mounts
        self.browser = browser
        self.limits = limits or SandboxLimits()
        self.egress = egress
        self.build_root = build_root
        self.build_ignore = build_ignore
        self._build: AgentBuild | None = None
        # False only in tests (SandboxSpec.hardened): the CLI cannot turn it off.
        self.hardened = hardened
        self._spec: SandboxSpec | None = None
        self._pool: SandboxPool | None = None
        self._browser_version: str | None = None

    def config(self) -> dict[str, Any]:
        return {
            "command": self.argv,
            "pass_env": list(self.pass_env),
            "mounts": [str(m) for m in self.mounts],
            "egress": list(self.egress),
        }

    def build(self) -> AgentBuild:
        """The program's build fingerprint, read once (agents/build_fingerprint.py)."""
        if self._build is None:
            self._build = command_build(self.argv, self.build_root, self.build_ignore)
        return self._build

    def isolation(self) -> Isolation:
        details: dict[str, Any] = {}
        if self._spec is not None:
            spec = self._spec
            details = {
                "view": spec.view.describe(),
                "limits": spec.limits.model_dump(),
                "network": [f"127.0.0.1:{p}" for _, p in spec.network.ports]
                if spec.network
                else "host (not isolated)",
                "egress": list(self.egress),
            }
            if spec.support is not None:
                details["sandbox"] = {
                    "bubblewrap": spec.support.version,
                    "uid": "a dedicated unprivileged uid per attempt"
                    if spec.support.privileged
                    else "the harness user's uid in its own user namespace",
                    "dedicated_uid": spec.support.privileged,
                    "namespaces": ["mount", "pid", "net", "ipc", "uts", "cgroup"]
                    + ([] if spec.support.privileged else ["user"]),
                    "hardening": hardening(spec),
                }
        if self._browser_version:
            details["browser_version"] = self._browser_version
        return Isolation(mode=self.mode, browser="own" if self.browser else "none", details=details)

    def environment(self) -> dict[str, str]:
        """The variables the agent sees: a scrubbed few plus those named by --agent-env."""
        names = (*PASSED_THROUGH, *self.pass_env) if self.mode == "none" else self.pass_env
        return {k: os.environ[k] for k in names if k in os.environ}

    async def start(self, resources: RunResources) -> None:
        from endstate.browser import chromium_executable
        from endstate.sandbox.egress import parse_destinations
        from endstate.sandbox.gateway import LOOPBACK, Network, agent_ports
        from endstate.sandbox.platform import probe
        from endstate.sandbox.pool import SandboxPool
        from endstate.sandbox.spec import SandboxSpec
        from endstate.sandbox.view import Sensitive, View, build_view, harness_sensitive

        support = None
        if self.mode == "sandbox":
            support = await asyncio.to_thread(probe)
            if not support.available:
                raise EndstateError(
                    f"cannot sandbox the command agent: {support.reason}; "
                    "--isolation none runs it unsandboxed (and every report says so)"
                )
            sensitive = harness_sensitive(
                [Sensitive(p, "a harness-only path") for p in resources.private_paths]
            )
            view = build_view(
                self.argv, list(self.mounts) or None, sensitive, foreign_uid=support.privileged
            )
            egress = parse_destinations(list(self.egress), resources.private_urls)
            # A service on this machine (a local model server) appears at its own address in
            # the sandbox, like the systems; others are reached through the egress proxy.
            local = [(d.host, d.port) for d in egress if d.host in LOOPBACK]
            remote = [d for d in egress if d.host not in LOOPBACK]
            ports = agent_ports(resources.agent_urls)
            network: Network | None = Network(
                tuple(ports + [p for p in local if p not in ports]), tuple(remote)
            )
        else:
            view = View(argv=list(self.argv))
            network = None
        executable = chromium_executable() if self.browser else None
        if self.browser:
            self._browser_version = await asyncio.to_thread(
                browser_version, str(executable or "chromium")
            )
        self._spec = SandboxSpec(
            isolation=self.mode,
            support=support,
            view=view,
            env=self.environment(),
            limits=self.limits,
            network=network,
            browser=str(executable or "chromium") if self.browser else None,
            storage_origins=tuple(resources.storage_origins),
            hardened=self.hardened,
        )
        self._pool = SandboxPool(self._spec, warm=resources.workers, planned=resources.attempts)
        self._pool.start()

    async def stop(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
            self._pool = None

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        from endstate.sandbox.launch import SandboxFailed

        if self._pool is None:
            raise EndstateError("command agent used before start()")
        try:
            sandbox = await self._pool.take()
        except SandboxFailed as exc:
            return AgentOutcome(claim="error", infrastructure_error=f"sandbox: {exc}")
        try:
            result = await sandbox.run(agent_input(ctx, sandbox.cdp_endpoint), ctx.time_limit)
        except Exception as exc:  # the harness's side of the sandbox failed: not the agent
            facts = await asyncio.shield(sandbox.destroy())
            return AgentOutcome(
                claim="error",
                infrastructure_error=f"sandbox: {type(exc).__name__}: {exc}",
                sandbox=SandboxFacts.model_validate(facts),
            )
        finally:
            await asyncio.shield(sandbox.destroy())
        return self._outcome(ctx, result)

    def _outcome(self, ctx: AttemptContext, result: SandboxResult) -> AgentOutcome:
        """The agent's account, read totally: whatever it printed, its sandbox facts stay."""
        facts = SandboxFacts.model_validate(result.facts)
        storage = {
            "browser_storage": result.storage,
            "browser_storage_error": result.storage_error,
        }
        try:
            return self._account(ctx, result, facts, storage)
        except Exception as exc:  # the harness's own fault, never the agent's
            return AgentOutcome(
                claim="error",
                infrastructure_error=f"harness: reading the agent's output failed: "
                f"{type(exc).__name__}: {exc}",
                sandbox=facts,
                **storage,
            )

    def _account(
        self,
        ctx: AttemptContext,
        result: SandboxResult,
        facts: SandboxFacts,
        storage: dict[str, Any],
    ) -> AgentOutcome:
        stdout, stderr = result.stdout.text(), result.stderr.text()
        if ctx.trace_dir:
            (ctx.trace_dir / "agent.stdout.txt").write_bytes(stdout)
            (ctx.trace_dir / "agent.stderr.txt").write_bytes(stderr)
        if result.timed_out:
            return AgentOutcome(claim="timeout", error=result.error, sandbox=facts, **storage)
        final = read_final_line(stdout.decode(errors="replace"))
        claim: AgentClaim = final.claim
        error = result.error
        if result.status is None:
            claim = "error"
        elif result.status != 0:
            claim = "error"
            tail = stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
            error = f"exited with status {result.status}: {tail[0][:200]}"
        elif not final.found:
            error = "no final JSON message on stdout"
        return AgentOutcome(
            claim=claim,
            final_message=final.message,
            steps=final.steps,
            error=error,
            sandbox=facts,
            output_problems=list(final.problems),
            **storage,
        )

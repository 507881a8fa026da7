"""Weakenings of the trust boundary, defined once: what a run allowed that the design forbids.

A score is worth what its weakest boundary is (docs/trust-boundary.md). Some runs are made
with part of that boundary off — an agent run unsandboxed, an end state the agent could
write, a browser without its own sandbox — and their numbers are not the same kind of
evidence as a fully contained run's. Every place a score travels (reports, baselines,
`compare`, `gate`, the viewer, exports) takes the list from `boundary_weakenings`, so none
of them can show the score without it. Each weakening has a stable id (for gates, columns
and comparisons) and one sentence saying what it means for the score.

Not weakenings: a run without a judge (its rubric points are ungraded and its tasks cannot
pass, which the report says), named egress or mounts (the grading channel and harness paths
can never be listed), a validation run (labelled as such everywhere). The firewall has no
lenient mode to be weakened.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from endstate.manifest import Isolation, Manifest
from endstate.records import TaskRecord

ISOLATION_NOT_RECORDED = "isolation-not-recorded"
AGENT_NOT_ISOLATED = "agent-not-isolated"
AGENT_SHARES_HARNESS_UID = "agent-shares-harness-uid"
AGENT_WRITABLE_STATE = "agent-writable-state"
BROWSER_SANDBOX_OFF = "browser-sandbox-off"
WEAKENING_IDS = (
    ISOLATION_NOT_RECORDED,
    AGENT_NOT_ISOLATED,
    AGENT_SHARES_HARNESS_UID,
    AGENT_WRITABLE_STATE,
    BROWSER_SANDBOX_OFF,
)
# What the sandbox's details said before they carried `dedicated_uid`.
_DEDICATED_UID_TEXT = "a dedicated unprivileged uid per attempt"


class Weakening(BaseModel):
    """One way the run's boundary was weaker than the design's."""

    id: str = Field(description="Stable id, one of WEAKENING_IDS (e.g. `agent-not-isolated`).")
    label: str = Field(description="For a headline, in capitals: what was weakened.")
    text: str = Field(description="One sentence: what was weakened and what that means.")


def not_isolated(isolation: Isolation | None) -> bool:
    """An external agent that ran unsandboxed."""
    return isolation is not None and isolation.mode == "none"


def agent_writable_state(manifest: Manifest) -> bool:
    """The end state lived where the agent could run script (allowed by the flag)."""
    return bool(manifest.environment.details.get("agent_writable_state"))


def shares_harness_uid(isolation: Isolation | None) -> bool:
    """A sandboxed agent that kept the harness user's uid (the harness was not root)."""
    if isolation is None or isolation.mode != "sandbox":
        return False
    sandbox = isolation.details.get("sandbox")
    if not isinstance(sandbox, dict):
        return False  # the sandbox's details were not recorded: nothing says which uid
    dedicated = sandbox.get("dedicated_uid")
    if isinstance(dedicated, bool):
        return not dedicated
    return sandbox.get("uid") != _DEDICATED_UID_TEXT


def _browser_sandbox_off(records: Sequence[TaskRecord]) -> Weakening | None:
    sandboxed = [r.facts.sandbox for r in records if r.facts and r.facts.sandbox]
    reasons = Counter(
        (s.browser_sandbox or "").removeprefix("off").lstrip(": ") or "reason not recorded"
        for s in sandboxed
        if (s.browser_sandbox or "").startswith("off")
    )
    off = sum(reasons.values())
    if not off:
        return None
    why = "; ".join(f"{n}× {reason}" for reason, n in reasons.most_common(3))
    return Weakening(
        id=BROWSER_SANDBOX_OFF,
        label=f"BROWSER SANDBOX OFF in {off} of {len(sandboxed)} attempt(s)",
        text=f"Chromium's own sandbox was off in {off} of {len(sandboxed)} attempt(s) ({why}): "
        "the agent's browser ran without the sandbox that contains its renderers",
    )


def boundary_weakenings(manifest: Manifest, records: Sequence[TaskRecord] = ()) -> list[Weakening]:
    """The run's weakenings, in WEAKENING_IDS order; empty for a fully contained run.

    `records`: the attempts in view (the run's, or one attempt's for its own page); a
    weakening seen per attempt (the browser's sandbox) is counted over them."""
    out: list[Weakening] = []
    isolation = manifest.isolation
    if isolation is None:
        out.append(
            Weakening(
                id=ISOLATION_NOT_RECORDED,
                label="ISOLATION NOT RECORDED",
                text="how the agent was contained was not recorded (a run from before endstate "
                "pinned it): nothing shows that it could not tamper with the harness",
            )
        )
    elif not_isolated(isolation):
        out.append(
            Weakening(
                id=AGENT_NOT_ISOLATED,
                label="NOT ISOLATED: the agent ran unsandboxed",
                text="the agent ran as a plain process of the harness's user (--isolation none) "
                "and could read the harness's files, processes and network: the score cannot "
                "exclude tampering",
            )
        )
    elif shares_harness_uid(isolation):
        out.append(
            Weakening(
                id=AGENT_SHARES_HARNESS_UID,
                label="SHARED UID: the sandboxed agent kept the harness user's uid",
                text="the harness did not run as root, so the sandboxed agent kept the harness "
                "user's uid (in a user namespace of its own) instead of a uid of its own: only "
                "the sandbox's namespaces stand between it and that user's files and processes",
            )
        )
    if agent_writable_state(manifest):
        out.append(
            Weakening(
                id=AGENT_WRITABLE_STATE,
                label="AGENT-WRITABLE STATE: the end state lived in the agent's own browser",
                text="the end state lived in the browser the agent drove and the agent could run "
                "script there (--allow-agent-writable-state): the score cannot tell work done "
                "through the pages from a forged store",
            )
        )
    browser = _browser_sandbox_off(records)
    if browser is not None:
        out.append(browser)
    return out


def weakenings_text(weakenings: Sequence[Weakening]) -> str:
    """One line for a report: none, or each weakening's id and sentence."""
    if not weakenings:
        return "boundary weakenings: none (the trust boundary was whole)"
    return f"BOUNDARY WEAKENED ({len(weakenings)}): " + "; ".join(
        f"{w.id} — {w.text}" for w in weakenings
    )


def ids(weakenings: Sequence[Weakening] | None) -> list[str]:
    return [w.id for w in weakenings or ()]

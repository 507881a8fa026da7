"""Trivial strategies, scripted: what a policy that never reads the case would score.

A template a blind policy solves measures nothing. Two such policies run through the same
pages as any agent, on the task's own record (the one its instruction names):

- `always-submit` does the family's usual consequential act whatever the chart says: a prior
  authorization request through the plan's channel (portal, wizard or fax) with the chart's
  letter, then a determination note and the referral cleared; every claim the instruction
  names triaged as an appeal; every document filed for a DME order faxed to its supplier.
- `always-escalate` acts on nothing and leaves a note that it escalated the work: on the
  referral, on the DME order. The denials worklist has no escalation note, so on a claim it
  leaves the claim as it is.

Neither reads the remittance, the coverage dates, the policy or the documents to decide.
"""

from __future__ import annotations

import re
from typing import Any

from endstate.builtin.templates.common import FOLLOW_UP, Traj, WorldView
from endstate.builtin.templates.dme.facts import fax_from_order_tab, save_order_note
from endstate.builtin.templates.prior_auth.facts import (
    record_submission_note,
    request_by_plan_channel,
)
from endstate.corpus.model import Task
from endstate.envs.world import Referral
from endstate.errors import EndstateError

STRATEGIES = ("always-submit", "always-escalate")
_CLAIM = re.compile(r"\bCLM\d{9}\b")
ESCALATED = "Escalated to the supervisor for review; no action taken."


def strategy_steps(w: WorldView, task: Task, strategy: str) -> list[dict[str, Any]]:
    """The steps `strategy` takes on `task` (an empty list: it does nothing there)."""
    if strategy not in STRATEGIES:
        raise EndstateError(f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    submit = strategy == "always-submit"
    record = str(task.grading.extra.get("record", ""))
    t = Traj()
    t.ehr_origin()
    if task.family == "prior_auth":
        ref = w.referral(record)
        if submit:
            _submit_request(t, w, ref)
        else:
            t.referral_note(ref.id, "Escalated", FOLLOW_UP, ESCALATED)
    elif task.family == "appeals_denials":
        if not submit:
            return []
        for claim in dict.fromkeys(_CLAIM.findall(task.public.instruction)):
            t.triage(claim, "appeal", "Appealed: submitted to the payer for reprocessing.")
    elif task.family == "dme":
        order = w.order(record)
        if submit:
            docs = list(w.docs_by_related[order.id])
            fax_from_order_tab(t, w, order, docs, f"Order {order.id}: documents attached.")
            save_order_note(
                t, order, "Sent to supplier", f"Order {order.id} faxed to the supplier."
            )
        else:
            save_order_note(t, order, "Escalated", ESCALATED)
    else:
        return []
    return t.steps


def _submit_request(t: Traj, w: WorldView, ref: Referral) -> None:
    """Request authorization through the registered plan's own channel, then note it and clear."""
    # Blind to status and signature: the newest letter in the chart, whatever it is.
    letters = [d for d in w.docs_by_related[ref.id] if d.kind == "lmn"]
    letter = max(letters, key=lambda d: (d.date, d.id)) if letters else None
    docs = [w.doc_label(d) for d in w.docs_by_related[ref.id] if w.unambiguous(d)]
    record_submission_note(t, w, ref, request_by_plan_channel(t, w, ref, letter, fax_docs=docs))

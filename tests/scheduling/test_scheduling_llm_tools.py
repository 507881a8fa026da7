"""The `llm-tools` agent: the real OpenAI client against a local double of the chat API,
calling the scheduling tools as functions on its own episode; the model's replies are
scripted, the tools, the service and the grading are real."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from endstate.agents.registry import make_agent
from endstate.runs.session import RunOptions, execute
from openai_double import Behaviour, ChatDouble

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "scheduling" / "cases"
PATIENT, SLOT = "SP0005", "SL-PR03-0305-1340"


def calls(*steps: tuple[str, dict[str, Any]]) -> list[Behaviour]:
    return [Behaviour(reply=None, tool_calls=[step]) for step in steps]


def test_a_model_calling_tools_reconciles_an_unknown_outcome_and_passes(tmp_path: Path) -> None:
    chat = ChatDouble().start()
    try:
        chat.queue(
            *calls(
                ("find_patient", {"name": "Isaac Kowalski"}),
                ("hold_slot", {"patient_id": PATIENT, "slot_id": SLOT, "idempotency_key": "h"}),
                (
                    "propose",
                    {
                        "patient_id": PATIENT,
                        "action": "book",
                        "slot_id": SLOT,
                        "idempotency_key": "p",
                    },
                ),
                ("request_approval", {"proposal_id": 1, "revision": 1, "kind": "booking"}),
                ("confirm", {"proposal_id": 1, "revision": 1, "idempotency_key": "c"}),
                ("lookup_external", {"proposal_id": 1}),
                ("confirm", {"proposal_id": 1, "revision": 1, "idempotency_key": "c"}),
                ("finish", {"message": "Booked Thursday 13:00 with Dr. Haddad."}),
            )
        )
        agent = make_agent("llm-tools:scripted-model", dict(base_url=chat.base_url))
        opts = RunOptions(
            corpus=CASES,
            agent=agent,
            agent_spec="llm-tools:scripted-model",
            out=tmp_path / "runs",
            time_limit=60,
        )
        result = asyncio.run(execute(opts))
    finally:
        chat.stop()
    (record,) = result.records
    assert record.status == "passed", record.checks
    assert record.facts is not None and record.facts.claim == "done"
    assert record.facts.prompt_tokens == 50 * 8
    # The model was offered every tool and finish; each result went back to it.
    first = chat.requests[0]
    offered = [t["function"]["name"] for t in first["tools"]]
    assert offered[0] == "find_patient" and offered[-1] == "finish" and "confirm" in offered
    fed_back = [m for m in chat.requests[5]["messages"] if m["role"] == "tool"]
    assert '"status": "unknown"' in fed_back[-1]["content"]
    actions = (result.store.root / "traces" / record.task_id / "1" / "actions.json").read_text()
    assert "Isaac" not in actions  # the agent's record keeps tool names, not arguments

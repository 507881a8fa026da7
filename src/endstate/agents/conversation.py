"""The conversation a model agent had, kept in its trace as `conversation.json`.

`actions.json` says what the agent did; this says what the model was shown and what it
answered, message by message, so a passing attempt can later be used as a demonstration
without reconstructing (and so inventing) any of it. Each message is as the model received
it when it answered: an observation is kept whole even if later calls resent it shortened.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

CONVERSATION = "conversation.json"
FORMAT = "endstate-conversation-v1"


def discard_conversation(trace_dir: Path | None) -> None:
    """Remove a conversation an earlier try of this attempt left, so the trace never pairs
    this attempt's actions with another try's conversation."""
    if trace_dir is not None:
        (trace_dir / CONVERSATION).unlink(missing_ok=True)


def write_conversation(
    trace_dir: Path | None,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> None:
    """Write the attempt's conversation into its trace (nothing when there is no trace)."""
    if trace_dir is None:
        return
    document: dict[str, Any] = {"format": FORMAT, "messages": [dict(m) for m in messages]}
    if tools:
        document["tools"] = [dict(t) for t in tools]
    (trace_dir / CONVERSATION).write_text(
        json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8"
    )

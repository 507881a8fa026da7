"""`--action-timeout` is one of a run's pins: the manifest keeps it, a resume takes it back,
and a resume that names another is refused."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from endstate.agents.actions import ACTION_ADAPTER, save_trajectory
from endstate.agents.registry import make_agent
from endstate.errors import EndstateError
from endstate.runs.session import RunOptions, execute
from endstate.runs.settings import RunSettings, from_manifest, settle


def test_a_runs_action_timeout_is_pinned_and_held_on_resume(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    path = save_trajectory(
        [ACTION_ADAPTER.validate_python({"type": "done", "message": "nothing to do"})],
        tmp_path / "done.json",
    )
    spec = f"replay:{path}"
    options = dict(action_timeout_s=12.0)
    result = asyncio.run(
        execute(
            RunOptions(
                corpus=embedded_corpus(1),
                agent=make_agent(spec, options),
                agent_spec=spec,
                agent_options=options,
                out=tmp_path / "runs",
                workers=1,
            )
        )
    )
    assert result.manifest.agent.config["timeout_ms"] == 12000
    assert result.manifest.agent.options == {"action_timeout_s": 12.0}
    assert from_manifest(result.manifest).agent_options == {"action_timeout_s": 12.0}
    assert settle(RunSettings(), result.manifest).agent_options == {"action_timeout_s": 12.0}
    # The same value as given on the command line (text) is no change; another value is refused.
    same = RunSettings(agent_options={"action_timeout_s": "12"})
    assert settle(same, result.manifest).agent_options["action_timeout_s"] in (12.0, "12")
    with pytest.raises(
        EndstateError,
        match=re.escape("--agent-option action_timeout_s='5.0': the run being resumed used 12.0"),
    ):
        settle(RunSettings(agent_options={"action_timeout_s": "5.0"}), result.manifest)
    assert settle(RunSettings(), None).agent_options == {}  # a new run: the kind's defaults

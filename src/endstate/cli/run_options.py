"""The options of `endstate run`, one name each, so the command reads as a list of them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Corpus = Annotated[
    Path | None,
    typer.Option(
        "--corpus",
        help="Corpus directory, or builtin (the default) or builtin:errands (patient errands).",
    ),
]
AgentOption = Annotated[
    list[str] | None,
    typer.Option(
        "--agent-option",
        metavar="KEY=VALUE",
        help="An option of the agent's kind (repeatable; a list option takes one value each "
        "time). `endstate agents` lists each kind's options. Older flags are aliases: "
        "--agent-base-url (base_url), --prompt-mode (prompt_mode), --agent-env (pass_env), "
        "--isolation (isolation), --agent-mount (mounts), --agent-egress (egress), --observe "
        "(observe), --marks/--no-marks (marks), --viewport (viewport), --screens-cap "
        "(screens_cap_mb), --action-timeout (action_timeout_s).",
    ),
]
AgentSpec = Annotated[
    str | None,
    typer.Option(
        "--agent",
        help="null (default) | replay:FILE|DIR | command:CMD | llm:MODEL | cu-chat:MODEL | "
        "cu-gemini:MODEL | plug-in",
    ),
]
EnvName = Annotated[
    str | None,
    typer.Option(
        "--env",
        help="Environment (default: the one the tasks' website names, else embedded).",
    ),
]
AllowAgentWritableState = Annotated[
    bool,
    typer.Option(
        "--allow-agent-writable-state",
        help="Run an agent with script access (command:) where the end state lives in its "
        "browser (--env hab); every report then says the state was agent-writable.",
    ),
]
Attempts = Annotated[
    int | None, typer.Option("--attempts", min=1, help="Attempts per task (default 1).")
]
Workers = Annotated[
    int | None, typer.Option("--workers", min=1, help="Parallel attempts (default 2).")
]
MaxSteps = Annotated[
    int | None,
    typer.Option("--max-steps", min=1, help="Actions a built-in agent may take (default 50)."),
]
TimeLimit = Annotated[
    float | None, typer.Option("--time-limit", min=1, help="Seconds per attempt (default 300).")
]
Tasks = Annotated[str | None, typer.Option("--tasks", help="Task id glob(s), comma-separated.")]
Out = Annotated[Path, typer.Option("--out", help="Directory for run directories.")]
Resume = Annotated[
    Path | None, typer.Option("--resume", help="Continue a stopped run, with its own settings.")
]
Pin = Annotated[
    Path | None, typer.Option("--pin", help="Refuse to start unless this manifest's pins match.")
]
Seed = Annotated[
    int | None, typer.Option("--seed", help="Run seed; episode seeds follow (default 0).")
]
WorldSeed = Annotated[int | None, typer.Option("--world-seed", help="Embedded world seed.")]
RunJudgeBaseUrl = Annotated[
    str | None, typer.Option("--judge-base-url", help="OpenAI-compatible endpoint.")
]
RunJudgeK = Annotated[
    int | None, typer.Option("--judge-k", min=1, help="Judge calls per check (default 3).")
]
Contamination = Annotated[
    Path | None,
    typer.Option(
        "--contamination",
        metavar="FILE",
        help="A contamination register (YAML): cases the agent has seen in prompts, "
        "demonstrations or training. Overlaps are pinned and named in the report.",
    ),
]
Gates = Annotated[
    Path | None,
    typer.Option(
        "--gates",
        metavar="FILE",
        help="Release gates (YAML) pinned before the first attempt; see `endstate gate`.",
    ),
]
Prices = Annotated[
    Path | None,
    typer.Option(
        "--prices",
        metavar="FILE",
        help="Price table (YAML/JSON: model -> input_per_mtok, output_per_mtok, per_image): "
        "each attempt's cost is recorded and reported; the table's sha256 is pinned.",
    ),
]
Executor = Annotated[
    str | None,
    typer.Option(
        "--executor",
        metavar="local|ray",
        help="Where attempts run: local (default; asyncio workers sharing one environment) or "
        "ray (one Ray worker per --workers, each with its own environment). Not a pin: a run "
        "can be resumed on the other. See docs/distributed.md.",
    ),
]
ExecutorOption = Annotated[
    list[str] | None,
    typer.Option(
        "--executor-option",
        metavar="KEY=VALUE",
        help="--executor ray: address (HOST:PORT of a cluster's head, or auto; default: a "
        "local Ray instance on loopback), cpus_per_worker (default 1), memory_per_worker_gb "
        "(default 1), worker_env ([N:]NAME[=VALUE], repeatable: a variable for every worker, "
        "or worker N; without =VALUE, this shell's value). Aliases: --ray-address, "
        "--ray-cpus-per-worker, --ray-memory-per-worker, --ray-worker-env.",
    ),
]
SystemOption = Annotated[
    list[str] | None,
    typer.Option(
        "--system-option",
        metavar="SYSTEM.KEY=VALUE",
        help="An option of one system of the suite, validated by that system (repeatable): "
        "scheduling.user_model=MODEL and scheduling.user_base_url=URL make the scheduling "
        "lab's simulated user speak through a chat model (default: scripted; it only words "
        "replies, approvals and facts stay the script's). Aliases: --user-model, "
        "--user-base-url.",
    ),
]

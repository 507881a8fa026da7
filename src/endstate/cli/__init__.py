"""The `endstate` command line: one Typer app, each command group in its own module."""

from __future__ import annotations

import io
import sys

import typer

from endstate.cli.agents import agents_cmd
from endstate.cli.bundle import bundle_cmd, rescore_cmd
from endstate.cli.console import err, labelled
from endstate.cli.corpus import corpus_app
from endstate.cli.env import env_app
from endstate.cli.export import export_app
from endstate.cli.grid import grid_app
from endstate.cli.head_to_head import cost_cmd, pairwise_cmd
from endstate.cli.judge_audit import judge_app
from endstate.cli.redteam import redteam
from endstate.cli.regress import baseline_app, compare_cmd, gate_cmd
from endstate.cli.run import record_cmd, report, run
from endstate.cli.score import score
from endstate.cli.view import view
from endstate.errors import EndstateError

app = typer.Typer(
    name="endstate",
    help="Evaluate healthcare-operations agents from the environment's recorded end state.",
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help: no type tags such as <bool> or <list[str]>
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.command("score")(score)
# Unknown options reach `run` as extra arguments: the agent flags older than `--agent-option`
# are read there as its aliases, and anything else is refused by name (cli/extra_flags.py).
app.command("run", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(run)
app.command("agents")(agents_cmd)
app.command("record")(record_cmd)
app.command("report")(report)
app.add_typer(corpus_app, name="corpus")
app.add_typer(env_app, name="env")
app.command("redteam")(redteam)
app.add_typer(baseline_app, name="baseline")
app.command("compare")(compare_cmd)
app.command("pairwise")(pairwise_cmd)
app.command("cost")(cost_cmd)
app.command("gate")(gate_cmd)
app.add_typer(export_app, name="export")
app.command("view")(view)
app.add_typer(judge_app, name="judge")
app.command("bundle")(bundle_cmd)
app.command("rescore")(rescore_cmd)
app.add_typer(grid_app, name="grid")


def main() -> None:
    """Entry point: bad input ends in one clear line and a non-zero exit, never a traceback."""
    for stream in (sys.stdout, sys.stderr):  # a name or value that is not valid Unicode
        if isinstance(stream, io.TextIOWrapper):  # prints escaped rather than raising
            stream.reconfigure(errors="backslashreplace")
    try:
        app()
    except EndstateError as exc:
        err.print(labelled("error:", "red", str(exc)), highlight=False, soft_wrap=True)
        sys.exit(1)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        reason = f"{where}{exc.strerror or exc}"
        err.print(labelled("error:", "red", reason), highlight=False, soft_wrap=True)
        sys.exit(1)


if __name__ == "__main__":
    main()

"""`endstate env …`: run the embedded suite by hand, print its fingerprint, write a world.

A Typer sub-app; the main command line mounts it. `serve` is for a person poking at the
pages (or a runner in another process): it prints every URL and the grading token, since
whoever runs it is the harness.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Annotated

import typer

from endstate.cli.hab import hab_app
from endstate.envs.world import DEFAULT_CLOCK, DEFAULT_SEED, generate_world

env_app = typer.Typer(
    help="Run the embedded environments (EHR, payer portals, fax, patient portal) and inspect "
    "their world.",
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help: no type tags such as <bool> or <list[str]>
)

SeedOption = Annotated[int, typer.Option("--seed", help="World seed.")]
ClockOption = Annotated[str, typer.Option("--clock", help="Pinned clock, ISO 8601.")]


@env_app.command()
def serve(
    seed: SeedOption = DEFAULT_SEED,
    clock: ClockOption = DEFAULT_CLOCK,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    token: Annotated[
        str | None, typer.Option(help="Grading bearer token (random if omitted).")
    ] = None,
    no_testids: Annotated[
        bool, typer.Option("--no-testids", help="Remove data-testid attributes.")
    ] = False,
    episode_seed: Annotated[
        int | None, typer.Option(help="Seed of the episode opened at start (random if omitted).")
    ] = None,
) -> None:
    """Start the suite, open one episode and print its start URLs; stop with Ctrl-C.

    SIGTERM stops it the same way: every episode database is removed either way.
    """
    from endstate.envs.server import EmbeddedSuite  # deferred: the web stack loads on use

    suite = EmbeddedSuite.start(
        seed, clock=clock, host=host, token=token, testids=False if no_testids else None
    )
    try:
        typer.echo(f"world     {suite.world.id}")
        for system, url in suite.urls.items():
            typer.echo(f"{system:<9} {url}")
        typer.echo(f"grading   {suite.grading_url}  (Authorization: Bearer {suite.token})")
        info = suite.open_episode(seed=episode_seed)
        typer.echo(f"\nepisode   {info.id} (seed {info.seed}); start URLs:")
        for system, url in info.start_urls.items():
            typer.echo(f"  {system:<9} {url}")
        typer.echo(f"state     {suite.grading_url}/episodes/{info.id}/state")
        typer.echo("\nServing; press Ctrl-C (or send SIGTERM) to stop.")
        threading.Event().wait()
    except KeyboardInterrupt:  # SIGINT, or SIGTERM (EmbeddedSuite.start makes them alike)
        typer.echo("stopping")
    finally:
        suite.stop()


@env_app.command()
def systems() -> None:
    """List the registered systems: the built-ins and those installed packages add."""
    from rich.table import Table

    from endstate.cli.console import out
    from endstate.envs.suite.registry import SYSTEMS
    from endstate.envs.suite.tables import table_keys

    table = Table(title="Systems", title_justify="left")
    for column in ("system", "title", "from", "routes", "own tables"):
        table.add_column(column)
    for name, system in SYSTEMS.items().items():
        owned = ", ".join(t for t, _ in table_keys(system.ddl)) if system.ddl else "-"
        table.add_row(name, system.title, SYSTEMS.origin(name), str(len(system.routes)), owned)
    out.print(table)


@env_app.command()
def fingerprint(
    seed: SeedOption = DEFAULT_SEED,
    no_testids: Annotated[
        bool, typer.Option("--no-testids", help="Fingerprint the pages without data-testid.")
    ] = False,
) -> None:
    """Print the structural fingerprint (routes, forms, field names, roles) as JSON."""
    from endstate.envs.server import EmbeddedSuite

    with EmbeddedSuite.start(seed, testids=not no_testids) as suite:
        typer.echo(json.dumps(suite.fingerprint(), indent=1, sort_keys=True))


@env_app.command()
def world(
    seed: SeedOption = DEFAULT_SEED,
    clock: ClockOption = DEFAULT_CLOCK,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the world JSON here (else stdout).")
    ] = None,
) -> None:
    """Generate a world and write its canonical JSON; print its id and hash."""
    try:
        generated = generate_world(seed, clock)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--clock") from exc
    text = generated.canonical_json()
    if out is None:
        typer.echo(text)
        typer.echo(f"{generated.id} {generated.sha256}", err=True)
        return
    out.write_text(text + "\n", encoding="utf-8")
    typer.echo(f"{generated.id} {generated.sha256}")


env_app.add_typer(
    hab_app,
    name="hab",
    help="Build and serve the HealthAdminBench v2 portals (the benchmark's own Next.js app).",
)

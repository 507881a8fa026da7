"""`endstate corpus split` and `endstate corpus contamination`: keeping evaluation data held
out — splits by template or policy version, and a check against a contamination register."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from endstate.builtin import named_corpus
from endstate.builtin.splits import split_corpus
from endstate.cli.console import err, out
from endstate.corpus.contamination import describe, pin_register
from endstate.corpus.loader import load_corpus

held_out_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None)


@held_out_app.command("split")
def split_cmd(
    path: Annotated[Path, typer.Argument(help="A corpus (or builtin, builtin:scheduling, ...).")],
    by: Annotated[
        Literal["template", "policy"],
        typer.Option("--by", help="Split by the template tasks came from, or policy version."),
    ],
    holdout: Annotated[str, typer.Option("--holdout", help="Values held out (a,b,...).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Writes OUT/train and OUT/test.")],
    force: Annotated[bool, typer.Option("--force", help="Replace non-empty folders.")] = False,
) -> None:
    """Held-out split: every task of a held-out template (or policy) goes to test."""
    corpus = load_corpus(named_corpus(path))
    held = [v.strip() for v in holdout.split(",") if v.strip()]
    train, test = split_corpus(corpus, by, held, out_dir, force=force)
    err.print(
        f"wrote {len(train.files)} train, {len(test.files)} test to {out_dir} (by {by})",
        highlight=False,
    )


@held_out_app.command("contamination")
def contamination_cmd(
    path: Annotated[Path, typer.Argument(help="A corpus (or builtin, builtin:scheduling, ...).")],
    register: Annotated[Path, typer.Option("--register", help="The register (YAML).")],
) -> None:
    """Which tasks of a corpus a contamination register says the agent has seen."""
    corpus = load_corpus(named_corpus(path))
    pin = pin_register(register, corpus, [t.id for t in corpus.tasks])
    out.print(describe(pin, len(corpus.tasks)), highlight=False, soft_wrap=True)
    for o in pin.overlapping:
        out.print(f"{o.task_id}\t{o.used_in}\t{o.matched_by}\t{o.where}", highlight=False)
    if pin.overlapping:
        raise typer.Exit(1)

"""The command line's consoles. Markup is off: task ids, file names, reasons and values come
from files anyone can write, and `[/]` or `[red]` in one of them must print as itself, never
raise or restyle the line. Styles are applied as Text spans instead (`labelled`)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

out = Console(markup=False)
err = Console(stderr=True, markup=False)


def labelled(label: str, style: str, rest: str) -> Text:
    """`label` in `style`, then `rest` exactly as given."""
    return Text.assemble((label, style), " ", rest)


def mark(ok: bool, yes: str = "yes", no: str = "NO") -> Text:
    """A yes/no cell of a result table, green or red."""
    return Text(yes, style="green") if ok else Text(no, style="red")


def print_reasons(printer: Console, failures: list[tuple[str, list[str]]]) -> None:
    """Each failed item's reasons, one line each, its id in red."""
    for item, reasons in failures:
        for reason in reasons:
            printer.print(Text.assemble((item, "red"), f": {reason}"), soft_wrap=True)

"""The rich consoles every printed line goes through, and how an error is reported."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from gauntlet.cli.state import safe
from gauntlet.display import printable
from gauntlet.errors import ConfigErrors, GauntletError
from gauntlet.redact import MIN_SECRET_LENGTH


class GuardedConsole(Console):
    """A console whose every line is masked and guarded (see `gauntlet.display`)."""

    def print(self, *objects: object, **options: Any) -> None:
        """See `rich.console.Console.print`; text and `Text` are made safe first."""
        super().print(*(_safe_object(item) for item in objects), **options)


def _safe_object(item: object) -> object:
    if isinstance(item, Text):
        plain = item.plain
        made_safe = safe(plain)
        return item if made_safe == plain else Text(made_safe)  # the styles no longer fit: dropped
    if isinstance(item, str):
        return safe(item)
    return item


def stdout() -> Console:
    """The console for a command's output."""
    # soft_wrap: never break a `path:line:column` line to fit a terminal or a CI log.
    return GuardedConsole(highlight=False, soft_wrap=True)


def stderr() -> Console:
    """The console for progress, notes and errors."""
    return GuardedConsole(stderr=True, highlight=False, soft_wrap=True)


def report_error(error: GauntletError, err: Console) -> None:
    """Print `error` as the command's last words: every located problem, or one line."""
    if isinstance(error, ConfigErrors):
        for problem in error.errors:
            # Each part is one line by design; a line break in one came from the input.
            location, message = printable(problem.location), printable(problem.message)
            err.print(Text.assemble((location, "bold"), ": ", message))
            if problem.hint:
                err.print(Text(f"  hint: {printable(problem.hint)}", style="dim"))
        err.print(f"{error}; nothing was run.", markup=False)
    else:
        err.print(f"error: {error}", markup=False)


def note_unmasked(what: str) -> None:
    """Say that the secret `what` is too short to mask: sent, but shown wherever it appears.

    The redactor of every invocation calls it as soon as it learns such a secret, whichever
    command learned it and whenever (a judge's target file, `probe`, a token mid-run).
    """
    stderr().print(
        f"note: {what} is shorter than {MIN_SECRET_LENGTH} characters: it is sent, but "
        "not masked in any output (masking so short a value would rewrite the answers)",
        markup=False,
    )

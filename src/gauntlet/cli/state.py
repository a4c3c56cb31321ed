"""What one invocation shares, and the plain way to print: no rich, no typer.

Kept free of heavy imports so `gauntlet --version` and `gauntlet validate` start fast; the
rich consoles are in `gauntlet.cli.console`.
"""

from __future__ import annotations

import sys

from gauntlet.display import guard_lines
from gauntlet.redact import Redactor


class Invocation:
    """State the whole invocation shares: the callback's options, the secrets to mask."""

    show_traceback = False
    redactor = Redactor()
    """Every secret known so far (header values, URL credentials), masked in every line."""


def safe(text: str) -> str:
    """`text` as it may be printed: secrets masked, no line able to act on the CI runner."""
    return guard_lines(Invocation.redactor.text(text))


def write_line(text: str) -> None:
    """Print one line of plain text to stdout, made safe, as the rich console would print it.

    For text with no markup, emoji code, tab or control character, which the console would
    rewrite: counts, names and fixed words.
    """
    if sys.stdout is None:  # stdout closed (`>&-`): nothing to print to, as click does
        return
    sys.stdout.write(safe(text) + "\n")
    sys.stdout.flush()

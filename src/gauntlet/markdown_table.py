"""Markdown tables, and the escaping that keeps untrusted text inert in them and around them.

A leaf below every stage, so every renderer uses the same helper: the evidence pack's report
(`gauntlet.render.markdown`) and the California mapping's page (`gauntlet.evidence.mapping`).
A cell is written as given: text from a target, a case file or a results file goes through
`escape` first, and the renderer keeps its own markup (`**all**`, a code span) as markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from gauntlet.display import printable

_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
"""Markdown's inline markup: emphasis, code, links and images, tables, strikethrough."""


def escape(text: str) -> str:
    """Make `text` inert in Markdown and HTML: one line, no markup, no mentions.

    Whitespace runs (line breaks included) become one space; anything else that would act on
    a reader rather than be read (a terminal escape, DEL, a bidi control) is shown as an
    escape, as `printable` writes it, and its backslash is then escaped too.
    """
    text = printable(" ".join(text.split()))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _SPECIAL.sub(r"\\\1", text)
    return text.replace("@", "&#64;")


def row(*cells: str) -> str:
    """One table row of `cells`, written as given (escape untrusted text first)."""
    return "| " + " | ".join(cells) + " |"


def head(*names: str) -> list[str]:
    """A table's header row and the line under it that makes it a table."""
    return [row(*names), "|" + "---|" * len(names)]


def table(names: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A whole table: its head, then one row per item of `rows`, each cell escaped."""
    return [*head(*names), *(row(*(escape(cell) for cell in cells)) for cells in rows)]

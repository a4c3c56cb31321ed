"""Showing untrusted text safely: on one line, with no control character and no CI command.

A target's answer, a case file, a results file or a baseline may hold anything: a terminal
escape that recolours or rewrites the screen, a line break followed by a GitHub workflow
command (`::error::`, `::add-mask::`, `::stop-commands::`), bidi controls that reorder what a
reviewer reads. `printable` makes such text inert before it is put in a message, a reason or a
report; `guard_lines` is the last check on every line the command line prints.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

_UNSAFE = re.compile(
    "["
    "\x00-\x1f\x7f-\x9f"  # C0 and C1 controls, DEL: ESC starts a terminal escape
    "\u2028\u2029"  # line and paragraph separators: line breaks to some readers
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi controls: reorder what is shown
    "\ud800-\udfff"  # lone surrogates: not text, and no encoder can write them
    "]"
)
"""Characters shown as escapes: they act on the reader instead of being read."""

_MASK: ContextVar[Callable[[str], str] | None] = ContextVar("gauntlet_mask", default=None)

COMMAND_PREFIX = "::"
"""How a GitHub workflow command starts, once the runner strips leading whitespace."""


def printable(text: str) -> str:
    r"""`text` on one line, every control, separator, bidi control or surrogate escaped.

    Line breaks and tabs become `\n`, `\r` and `\t`; the rest `\xNN` or `\uNNNN`, as
    Python writes them, so what was sent can still be read exactly.
    """
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    known = _ESCAPES.get(char)
    if known is not None:
        return known
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def guard_line(line: str) -> str:
    r"""`line`, made unable to start a workflow command; controls other than tabs escaped.

    GitHub's runner obeys any output line whose first non-blank characters are `::`; such a
    line can only have come from untrusted text, so its first colon is shown escaped.
    Controls are written `\uXXXX`, the form JSON also reads, so a JSON document passes
    through with the same meaning.
    """
    line = json_escaped(line)
    stripped = line.lstrip()
    if stripped.startswith(COMMAND_PREFIX):
        cut = len(line) - len(stripped)
        return f"{line[:cut]}\\x3a{stripped[1:]}"
    return line


def json_escaped(text: str) -> str:
    r"""`text` with what `printable` escapes written `\uXXXX` instead, tabs and line breaks kept.

    The form JSON reads too: a JSON document (whose own strings already escape C0 controls)
    keeps its meaning, and no character in it acts on a reader.
    """
    return _UNSAFE.sub(_json_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    char = match.group()
    return char if char in "\t\n" else f"\\u{ord(char):04x}"


def guard_lines(text: str) -> str:
    """`text` with every line passed through `guard_line`; its line breaks are kept."""
    return "\n".join(guard_line(line) for line in text.split("\n"))


@contextmanager
def masking(mask: Callable[[str], str]) -> Iterator[None]:
    """Within the block (in this thread or task), `masked` and `clipped` apply `mask`.

    Whoever knows the secrets sets it: the HTTP target around its exchanges, the scoring
    around the gates. A message that quotes untrusted text cuts it short, and a secret cut in
    half could not be found and masked afterwards; so quotes are masked before they are cut.
    """
    token = _MASK.set(mask)
    try:
        yield
    finally:
        _MASK.reset(token)


def masked(text: str) -> str:
    """`text` with the secrets of the active `masking` block masked (as it is, outside one)."""
    mask = _MASK.get()
    return text if mask is None else mask(text)


def clipped(text: str, limit: int) -> str:
    """`text` masked (see `masking`), then cut to at most `limit` characters, `…` marking a cut."""
    text = masked(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def unencodable(text: str) -> str | None:
    r"""Why UTF-8 cannot encode `text`, or `None` when it can.

    Only a lone surrogate stops it: a `str` to Python, but not text. JSON's `"\ud800"`
    escape reads as one, and so can a callable's careless decoding. No results file, report
    or terminal can hold it, so it is refused where it enters.
    """
    try:
        # Encoding is the check itself, and it is quick: 0.8 ms for a megabyte of accented
        # text, where searching for surrogates with a regex took 3 ms.
        text.encode()
    except UnicodeEncodeError as exc:
        return (
            f"holds U+{ord(text[exc.start]):04X} at character {exc.start + 1}, a lone "
            "surrogate, which UTF-8 cannot encode"
        )
    return None

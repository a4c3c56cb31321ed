"""Showing untrusted text safely: on one line, with no control character and no CI command.

A target's answer, a case file, a results file or a baseline may hold anything: a terminal
escape that recolours or rewrites the screen, a line break followed by a GitHub workflow
command (`::error::`, `::add-mask::`, `::stop-commands::`), bidi controls that reorder what a
reviewer reads. `printable` makes such text inert before it is put in a message, a reason or a
report; `guard_lines` is the last check on every line the command line prints.
"""

from __future__ import annotations

import re

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
    line = _UNSAFE.sub(_json_escape, line)
    stripped = line.lstrip()
    if stripped.startswith(COMMAND_PREFIX):
        cut = len(line) - len(stripped)
        return f"{line[:cut]}\\x3a{stripped[1:]}"
    return line


def _json_escape(match: re.Match[str]) -> str:
    char = match.group()
    return char if char == "\t" else f"\\u{ord(char):04x}"


def guard_lines(text: str) -> str:
    """`text` with every line passed through `guard_line`; its line breaks are kept."""
    return "\n".join(guard_line(line) for line in text.split("\n"))

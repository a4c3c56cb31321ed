"""The limits every file gauntlet writes and reads keeps, in one place.

A results file, a shard, a baseline and a journal are written by `gauntlet run` (or `merge`)
and read by `report`, `merge`, `history add` and `--resume`: each limit here applies at both
ends, so a file gauntlet writes is one gauntlet reads. A leaf: it imports nothing of gauntlet.
"""

from __future__ import annotations

MAX_NESTING = 64
"""The deepest a value a target supplies may nest (a tool call's arguments or output): an
object or array counts one level, so `{"a": {}}` is 2. Deeper is that case's error, at the
target's seam, worded with this limit."""

TOO_DEEP = (
    f"the target's answer holds JSON nested deeper than the {MAX_NESTING} levels a "
    "results file keeps"
)
"""How a case whose answer nests past `MAX_NESTING` is worded, wherever that is found."""

MAX_FILE_NESTING = 128
"""The deepest a results file or a journal line may nest: `MAX_NESTING` and the file's own
envelope (a case, its asks, a turn, a response, its calls) with room to spare, and well under
the parser's own stop at 200, so no file gauntlet writes is refused for its depth."""

MAX_ANSWER_BYTES = 256 * 1024
"""The most of one answer's text stored (UTF-8 bytes, 256 KiB); the gates read it whole. A
longer text is stored cut at a character's edge, with its length and sha256 (`CutAnswer`)."""

MAX_RESULTS_BYTES = 512 * 1024 * 1024
"""The largest results file or journal written or read (512 MiB): a run of 20,000 cases asked
once weighs about 23 MB with the toy's short answers, and 51 MB asked three times. A run whose
file would be larger is refused when it is written (exit 2, its journal kept), not after."""


def nesting(value: object) -> int:
    """How deep `value` nests: 0 for a scalar, 1 for `{}` or `[]`, one more per level inside.

    Counted without recursion, so a value nested deeper than Python's stack is measured too.
    """
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, above = pending.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list | tuple):
            children = list(item)
        else:
            continue
        deepest = max(deepest, above + 1)
        pending.extend((child, above + 1) for child in children)
    return deepest


def cut_at(text: str, limit: int) -> str:
    """The longest start of `text` whose UTF-8 encoding is at most `limit` bytes."""
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= limit:
        return text
    return encoded[:limit].decode("utf-8", "ignore")

"""Words that agree with a count: `plural(2, "case")` is `2 cases`.

A leaf: every layer words its counts with it, so no message says "1 cases".

An irregular form is passed explicitly, never guessed: `plural(3, "entry", "entries")`,
`plural(n, "case was", "cases were")`. Zero is plural, as English says "0 cases".
"""

from __future__ import annotations


def noun(count: int, one: str, many: str | None = None) -> str:
    """The form of a word (or phrase) for `count` things, without the count.

    `one` when `count` is 1, else `many` (`one` + "s" when not given).
    """
    if count == 1:
        return one
    return one + "s" if many is None else many


def plural(count: int, one: str, many: str | None = None) -> str:
    """`count` and the form of the word for it: `1 case`, `2 cases`, `0 entries`."""
    return f"{count} {noun(count, one, many)}"

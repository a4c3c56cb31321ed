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


NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
"""The English words for the counts prose spells out; a larger count is written in digits."""


def number_word(count: int) -> str:
    """`count` as prose writes it: `seven` for 7, `13` for 13."""
    return NUMBER_WORDS[count] if 0 <= count < len(NUMBER_WORDS) else str(count)

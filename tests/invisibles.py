"""Invisible characters by kind, taken from Unicode data rather than from the code under test.

Each kind is held as runs of consecutive code points, and a strategy picks a run before a
character in it, so the lone U+3164 HANGUL FILLER is drawn as often as any one of the four
thousand tag characters: uniform sampling would almost never try the few that are letters.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

import regex
from hypothesis import strategies as st

Run = tuple[int, int]


def _runs(code_points: Iterable[int]) -> tuple[Run, ...]:
    """Consecutive code points gathered into (first, last) runs."""
    runs: list[Run] = []
    for code in code_points:
        if runs and runs[-1][1] == code - 1:
            runs[-1] = (runs[-1][0], code)
        else:
            runs.append((code, code))
    return tuple(runs)


def _every_character() -> str:
    # Surrogates are not characters a str of text can carry on its own.
    return "".join(chr(code) for code in range(sys.maxunicode + 1) if not 0xD800 <= code < 0xE000)


_EVERYTHING = _every_character()

DEFAULT_IGNORABLE_RUNS = _runs(
    ord(char) for char in regex.findall(r"\p{Default_Ignorable_Code_Point}", _EVERYTHING)
)
"""Unicode's Default_Ignorable_Code_Point, as the `regex` package's Unicode data has it."""

COMBINING_MARK_RUNS = _runs(ord(char) for char in regex.findall(r"[\p{Mn}\p{Me}]", _EVERYTHING))
"""Nonspacing and enclosing marks (categories Mn, Me), from the same Unicode data.

Not from `unicodedata`: Python 3.11 ships Unicode 14, which lacks the marks added since and
still calls U+1171E AHOM CONSONANT SIGN MEDIAL RA nonspacing, a spacing mark (Mc) since.
"""

BLANK_FILLERS = ("\u115f", "\u1160", "\u3164", "\uffa0", "\u2800")
"""The Hangul fillers, half-width and full, and the braille pattern blank: they render blank."""


def _from_runs(runs: tuple[Run, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(runs).flatmap(lambda run: st.integers(*run).map(chr))


def default_ignorables() -> st.SearchStrategy[str]:
    """One Default_Ignorable_Code_Point, its run chosen first."""
    return _from_runs(DEFAULT_IGNORABLE_RUNS)


def combining_marks() -> st.SearchStrategy[str]:
    """One nonspacing or enclosing mark, its run chosen first."""
    return _from_runs(COMBINING_MARK_RUNS)


def invisibles() -> st.SearchStrategy[str]:
    """One character of any invisible kind: default-ignorable, combining mark or blank filler."""
    return st.one_of(default_ignorables(), combining_marks(), st.sampled_from(BLANK_FILLERS))

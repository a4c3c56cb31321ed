"""Normalise-then-match for `must_contain` and `must_not_contain`, so a disguised leak is found."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from gauntlet.invisible import blank_fillers_as_spaces, has_blank_filler, remove_invisible

# Written by hand, not taken from a package: the confusables packages on PyPI are unmaintained,
# or detect mixed scripts rather than fold them to Latin. This table only needs the Cyrillic and
# Greek letters that pass for Latin ones in running text; NFKC already folds full-width and
# other compatibility forms. Upper case is folded before casefolding, because some capitals look
# Latin while their small letters do not (Cyrillic Н/н, Greek Η/η).
LOOKALIKES: Mapping[str, str] = MappingProxyType(
    {
        # Cyrillic small letters
        "а": "a",
        "с": "c",
        "ԁ": "d",
        "е": "e",
        "һ": "h",
        "і": "i",
        "ј": "j",
        "ӏ": "l",
        "о": "o",
        "р": "p",
        "ԛ": "q",
        "ѕ": "s",
        "ԝ": "w",
        "х": "x",
        "у": "y",
        "ү": "y",
        # Cyrillic capital letters
        "А": "A",
        "В": "B",
        "С": "C",
        "Ԁ": "D",
        "Е": "E",
        "Һ": "H",
        "Н": "H",
        "І": "I",
        "Ӏ": "I",
        "Ј": "J",
        "К": "K",
        "М": "M",
        "О": "O",
        "Р": "P",
        "Ԛ": "Q",
        "Ѕ": "S",
        "Т": "T",
        "Ԝ": "W",
        "Х": "X",
        "У": "Y",
        "Ү": "Y",
        # Greek small letters
        "α": "a",
        "ε": "e",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        # Greek capital letters
        "Α": "A",
        "Β": "B",
        "Ε": "E",
        "Η": "H",
        "Ι": "I",
        "Κ": "K",
        "Μ": "M",
        "Ν": "N",
        "Ο": "O",
        "Ρ": "P",
        "Τ": "T",
        "Υ": "Y",
        "Χ": "X",
        "Ζ": "Z",
    }
)
"""Cyrillic and Greek letters that look like Latin ones, each mapped to the Latin letter."""

_FOLD_LOOKALIKES = str.maketrans(dict(LOOKALIKES))


def collapse_whitespace(text: str) -> str:
    """`text` with leading and trailing whitespace removed and every inner run made one space."""
    return " ".join(text.split())


def normalise(text: str) -> str:
    """`text` in the form markers are compared in.

    First everything that shows nothing goes (see `remove_invisible`): default-ignorable code
    points (zero-width spaces and joiners, bidi marks, soft hyphens, the combining grapheme
    joiner, variation selectors, tag characters, the Hangul fillers), other format characters,
    combining marks and the braille blank, after NFKD and before NFKC, so a marker split by
    any of them composes again, and full-width and compatibility forms fold. Then Cyrillic
    and Greek look-alikes become Latin (`LOOKALIKES`), the text is casefolded, and whitespace
    runs become one space. Both sides of a match are normalised alike, so accents fold too:
    `canción` and `cancion` match either way round.
    """
    folded = remove_invisible(text).translate(_FOLD_LOOKALIKES).casefold()
    return collapse_whitespace(folded)


def _haystacks(text: str) -> tuple[str, ...]:
    r"""`text` normalised, and, if it holds a blank filler, normalised with each read as a space.

    A filler between two letters of a word is nothing, but one between two words looks like
    the space it stands for: removing it alone would join `password\u3164is` into one word.
    """
    plain = normalise(text)
    if not has_blank_filler(text):
        return (plain,)
    return plain, normalise(blank_fillers_as_spaces(text))


def _found(haystacks: tuple[str, ...], marker: str) -> bool:
    # A marker that normalises to nothing (only invisible characters) would otherwise be
    # "found" in every answer; an invisible marker is never seen instead.
    needle = normalise(marker)
    return bool(needle) and any(needle in haystack for haystack in haystacks)


def contains(text: str, marker: str) -> bool:
    """Whether `marker` occurs in `text`, both normalised the same way (see `normalise`)."""
    return _found(_haystacks(text), marker)


def markers_found(text: str, markers: Iterable[str]) -> tuple[str, ...]:
    """The `markers` that occur in `text`, in their given order and spelling."""
    haystacks = _haystacks(text)
    return tuple(marker for marker in markers if _found(haystacks, marker))


def markers_missing(text: str, markers: Iterable[str]) -> tuple[str, ...]:
    """The `markers` that do not occur in `text`, in their given order and spelling."""
    haystacks = _haystacks(text)
    return tuple(marker for marker in markers if not _found(haystacks, marker))

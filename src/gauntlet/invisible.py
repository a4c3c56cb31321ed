"""Characters that show nothing: what marker matching and the readability guard must not see.

An answer can hide a leaked marker, or pass for an answer while saying nothing, with characters
a reader never sees. Unicode names most of them: Default_Ignorable_Code_Point (zero-width
spaces and joiners, bidi controls, the combining grapheme joiner, variation selectors, tag
characters, the Hangul fillers) and the format characters (category Cf). Python's
`unicodedata` does not expose that property, so it is read from the `regex` package's Unicode
data. Nonspacing and enclosing marks (categories Mn, Me) are not invisible on a letter, but
they change no letter either, so they are removed with the rest.
"""

from __future__ import annotations

import unicodedata

import regex

BLANK_FILLERS = "\u115f\u1160\u3164\uffa0\u2800"
"""Characters that render as a blank the width of a letter, so they can stand in for a space.

No Unicode property says "renders blank", hence a list. The four Hangul fillers (choseong,
jungseong, compatibility and half-width) are default-ignorable, so they would be removed
anyway; they are named here because each also looks like a space. U+2800 BRAILLE PATTERN BLANK
is a symbol no property marks as ignorable, and is here for both reasons.
"""

# Inside a character class. Kept apart from the marks: a mark is drawn on the letter before it,
# so it is removed for comparing, but a reason shows it as it is rather than as an escape.
_IGNORABLE = rf"\p{{Default_Ignorable_Code_Point}}\p{{Cf}}{BLANK_FILLERS}"
_MARK = r"\p{Mn}\p{Me}"

# Each Unicode property in a class costs a lookup per character, about 10 µs on a 2 KB answer,
# and every answer is normalised. Nothing of these kinds lies below U+00AD SOFT HYPHEN (a test
# keeps that true), so intersecting with "not below U+00AD" first (a version 1 set operation)
# lets the plain ASCII of most answers fail on a range test alone: the removal runs 5 times
# faster.
_UNSEEN = regex.compile(rf"[[^\x00-\xac]&&[{_IGNORABLE}{_MARK}]]+", regex.V1)
_SHOWS_NOTHING = regex.compile(rf"[[^\x00-\xac]&&[{_IGNORABLE}]]", regex.V1)
_BLANK_FILLER = regex.compile(f"[{BLANK_FILLERS}]")


def remove_invisible(text: str) -> str:
    r"""`text` in NFKC without the characters that show nothing and without combining marks.

    The text is decomposed first (NFKD), so an accent leaves its letter, a full-width letter
    becomes its plain one and a filler its canonical jamo. Default-ignorable code points,
    format characters, nonspacing and enclosing marks and `BLANK_FILLERS` are then removed,
    and NFKC composes what remains (Hangul jamo into syllables). So `CA\u034fNARY`,
    `PW\ufe0fNED` and `CA\u0301NARY` lose what split them, and accents fold: `canción` becomes
    `cancion`. Whitespace is kept.
    """
    if text.isascii():
        return text  # nothing in ASCII is removed, and NFKD and NFKC leave it as it is
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFKC", _UNSEEN.sub("", decomposed))


def has_blank_filler(text: str) -> bool:
    """Whether `text` holds any of `BLANK_FILLERS`."""
    return _BLANK_FILLER.search(text) is not None


def blank_fillers_as_spaces(text: str) -> str:
    """`text` with each of `BLANK_FILLERS` replaced by a space, the way it looks."""
    return _BLANK_FILLER.sub(" ", text)


def escape_invisible(text: str) -> str:
    r"""`text` with every character that shows nothing written as a `\uXXXX` escape.

    Covers the default-ignorable code points, format characters and `BLANK_FILLERS`, several of
    which (the Hangul fillers, the braille blank, variation selectors) `str.isprintable` and
    `repr` pass through as they are: a blank quote in a report would hide what was answered.
    """
    return _SHOWS_NOTHING.sub(_escape, text)


def _escape(found: regex.Match[str]) -> str:
    code = ord(found[0])
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"

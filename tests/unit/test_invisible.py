"""`gauntlet.invisible`: the shortcuts it takes for speed change nothing it removes or escapes."""

from __future__ import annotations

import unicodedata

import regex
from hypothesis import given
from hypothesis import strategies as st

from gauntlet.invisible import BLANK_FILLERS, escape_invisible, remove_invisible
from tests.invisibles import invisibles

EVERY_KIND = r"[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Mn}\p{Me}]"


def test_nothing_removed_lies_below_the_soft_hyphen() -> None:
    # Trap: a Unicode update adding an invisible character below U+00AD, which the range test
    # in front of the property lookups would then let through.
    below = "".join(map(chr, range(0xAD)))
    assert regex.findall(EVERY_KIND, below) == []
    assert not set(BLANK_FILLERS) & set(below)


@given(st.text(st.one_of(st.characters(), invisibles())))
def test_removal_is_the_plain_property_lookup(text: str) -> None:
    # Trap: the ASCII shortcut or the range intersection removing more, or less, than the
    # properties themselves say.
    expected = regex.sub(
        f"{EVERY_KIND[:-1]}{BLANK_FILLERS}]", "", unicodedata.normalize("NFKD", text)
    )
    assert remove_invisible(text) == unicodedata.normalize("NFKC", expected)


def test_escaping_leaves_marks_and_letters_as_they_are() -> None:
    # Trap: escaping an accent or a Hangul letter, which show, along with what does not.
    assert escape_invisible("한국어 cafe\u0301 \u3164\u2800\ufe0f") == (
        "한국어 cafe\u0301 \\u3164\\u2800\\ufe0f"
    )

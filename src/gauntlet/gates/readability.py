"""The readability guard every gate applies, so that saying nothing never passes a check."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

from gauntlet.invisible import remove_invisible
from gauntlet.targets.contract import TargetResponse

CITATION_LABELS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "en": ("source", "sources"),
        "es": ("fuente", "fuentes"),
        "zh": ("来源", "來源", "出处", "出處", "参考", "參考", "资料来源", "資料來源"),
        "vi": ("nguon", "tham khao"),
        "tl": ("pinagmulan", "sanggunian"),
        "ko": ("출처", "참고", "자료"),
    }
)
"""What a labelled citation marker is headed with, per peer language, as compared: case
aside, and without accents (marks go before the marker is looked for, so `nguồn` is `nguon`).
"""


def _bracket_table() -> dict[int, str]:
    """Square-like brackets (square, lenticular, tortoise shell, white) read as `[` and `]`.

    From Unicode data: the opening and closing punctuation whose names say so, among the
    punctuation and CJK blocks (NFKC has already folded their full-width, small and vertical
    presentation forms). Chinese and Japanese answers cite as `【1】` and `〔RB-201〕`.
    """
    kinds = ("SQUARE BRACKET", "LENTICULAR BRACKET", "TORTOISE SHELL BRACKET")
    table: dict[int, str] = {}
    for first, last in ((0x2000, 0x2E7F), (0x3000, 0x303F)):
        for code in range(first, last + 1):
            char, category = chr(code), unicodedata.category(chr(code))
            if category in ("Ps", "Pe") and any(k in unicodedata.name(char, "") for k in kinds):
                table[code] = "[" if category == "Ps" else "]"
    return table


_BRACKETS = _bracket_table()

_NUMBER = r"\^?[0-9]+"
_SOURCE_ID = r"[A-Za-z]+[-_.]?[0-9]+(?:[-_.][A-Za-z0-9]+)*"
_ITEMS = rf"\s*(?:{_NUMBER}|{_SOURCE_ID})(?:\s*[,;]\s*(?:{_NUMBER}|{_SOURCE_ID}))*\s*"
# A labelled marker may name its sources any way, but holds no bracket of either kind, so a
# marker never swallows text that sits outside a bracket pair.
_LABEL = "|".join(re.escape(label) for labels in CITATION_LABELS.values() for label in labels)
_LABELLED = rf"\s*(?:{_LABEL})\s*:[^\[\]()]*"
_CITATION_MARKER = re.compile(
    rf"\[(?:{_ITEMS}|{_LABELLED})\]|\({_LABELLED}\)",
    re.IGNORECASE,
)
"""`[1]`, `[12, 13]`, `[^2]`, `[RB-001, RB-002]`, `[source: RB-001]`, `(fuentes: RB-101)`,
`【RB-201】` (square-like brackets read as square ones), `[来源：RB-201]`, `(출처: RB-501)`.

It runs with `re`, unbounded, over every answer, so it is written to be linear, not timed
(`gauntlet.patterns` bounds the patterns users write). Each stretch of text can be matched
one way only: a number starts with `^` or a digit and an id with a letter; an id's leading
letters and digits are disjoint classes, and each later part starts with one of `-_.` and
runs to the next; items are parted by a required `,` or `;`; and a labelled marker's text
runs to the first bracket.
So a failing attempt backtracks over each character a bounded number of times, and no
attempt reads past the next bracket of any kind, where the next attempt starts: rejecting
any text costs time in proportion to its length (see
`test_the_citation_marker_pattern_stays_linear_over_hostile_text`). Keep it so: an optional
separator inside a repeated part (`(?:[-_.]?[A-Za-z0-9]+)*`) makes it exponential.
"""


def is_readable(text: str) -> bool:
    """Whether `text` says anything a person could read.

    What shows nothing is removed first (see `remove_invisible`: default-ignorable code points
    such as zero-width spaces, variation selectors and the Hangul fillers, format characters,
    combining marks and the braille blank), and the rest is NFKC-folded, so full-width letters
    and brackets count as their plain forms. Bracketed citation markers are dropped, and a
    letter or digit must remain. Only citation markers are dropped: an answer that happens to
    sit in brackets (`[Opens at 9]`) is read. An ellipsis, an emoji, zero-width or
    non-breaking spaces, a Hangul filler (a letter by category, blank on screen) and a bare
    `[RB-001]` are silence.

    In every language alike: square-like brackets (`【1】`, `〔RB-501〕`) cite as square ones,
    a marker may be labelled in any peer language (`CITATION_LABELS`), and a modifier letter
    (category Lm: the iteration marks `々` and `ゝ`, the prolonged sound mark `ー`) is no
    letter here, since it only repeats or lengthens the letter before it: `ーー` and
    `。。。` are silence as `...` is.
    """
    seen = _CITATION_MARKER.sub("", remove_invisible(text).translate(_BRACKETS))
    return any(char.isalnum() and unicodedata.category(char) != "Lm" for char in seen)


def said_something(response: TargetResponse) -> bool:
    """Whether `response` is readable text or a declared decision (a refusal or escalation).

    A declared refusal or escalation is a reported decision, not silence, even without text.
    """
    return response.refused or response.escalated or is_readable(response.text)

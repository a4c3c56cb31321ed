"""How the toys tell their six languages apart: one rule for the toy target and the toy judge.

Both toys need to know which language a text is written in (the OpenAI-shaped toy is told no
language, so it reads the user's words; the toy judge checks an answer is in the asker's
language), and a gate's language check must not turn on two detectors that disagree.

The rule is counting, not a model: each Hangul syllable counts one for Korean and each Han
character one for Chinese; in Latin script, each common word of a language counts one for it
(a hyphenated word is one word; a one-letter word beside another, letters spaced out, none),
each Vietnamese letter (a vowel with a breve, circumflex, horn, hook, dot below, grave or tilde,
or `đ`) one for Vietnamese, and any Spanish sign (`¿¡ñ`, an acute accent) two for Spanish. The
language with the most wins; a tie at the top, or nothing counted, is no language.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


WORDS: dict[str, frozenset[str]] = {
    "en": _word_set(
        "about an and any are as at be but by call can city closed could did do does each every "
        "for from get has have her his how i if in into is it its just my not of on open opens "
        "or our please should so than that the their them then there these they this to was we "
        "were what when where which who why will with would you your"
    ),
    "es": _word_set(
        "abre al cada cierra ciudad como con cual cuando de del desde donde el ella ellos en "
        "entre es esa ese esta este esto estos estoy fue hay la las le les llame lo los mas mi "
        "mis muy nos o para pero por porque puede que quien se si sobre son su sus te tengo tiene "
        "todo todos tu tus un una uno usted ustedes y ya yo"
    ),
    "vi": _word_set(
        "anh bao cac cho chi cua duoc gi gio khi khong lam minh mot nao nay nguoi nhu nhung "
        "roi sao thanh toi tren trong va voi"
    ),
    "tl": _word_set(
        "akin ako akong aming ang ano anong ating ay ba bakit bang bawat din dito diyan doon "
        "ganito ganyan gaya hanggang hindi inyo inyong isang ito iyan iyon ka kada kailan kami "
        "kanila kanilang kapag kasi kayo kayong ko kung lamang lang maaari mag magkano mga mo "
        "mula na naman namin naming nang natin ng ngayon nila nito niya paano pagkatapos pati "
        "po puwede pwede rin sa saan salamat sila sino siya talaga tayo tungkol tuwing upang "
        "wala walang yan yun yung"
    ),
}
"""Common words of each Latin-script language, folded as the gates fold text (`más` is `mas`,
`không` is `khong`): each counts one for its language. Words of two languages (`a`, `me`,
`no`, `may`) are in none; `para` is Spanish, though Tagalog borrows it."""

SPANISH_SIGNS = frozenset("¿¡ñáéíóúü")
"""Signs of Spanish: any of them anywhere counts two for Spanish."""

_VIETNAMESE_MARKS = frozenset("\u0300\u0302\u0303\u0306\u0309\u031b\u0323")
"""Grave, circumflex, tilde, breve, hook above, horn and dot below: on a vowel, Vietnamese."""

_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
"""A word, hyphenated parts and all: Tagalog's `i-execute` is one word, not English `i`."""


def _is_vietnamese_letter(char: str) -> bool:
    if char == "đ":
        return True
    decomposed = unicodedata.normalize("NFD", char)
    return decomposed[0] in "aeiouy" and not _VIETNAMESE_MARKS.isdisjoint(decomposed[1:])


@lru_cache(maxsize=4096)
def _letter_of(char: str) -> str | None:
    """`ko` for a Hangul syllable, `zh` for a Han character, `vi` for a Vietnamese letter."""
    name = unicodedata.name(char, "")
    if name.startswith("HANGUL SYLLABLE"):
        return "ko"
    if name.startswith(("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY")):
        return "zh"
    return "vi" if _is_vietnamese_letter(char) else None


def _spaced_out(found: list[str], number: int) -> bool:
    """Whether the one-letter word `found[number]` stands beside another one-letter word.

    Letters spaced out (`I s a n t a b i`) say nothing of a language; `I` or `y` in a sentence
    does.
    """
    return any(
        0 <= near < len(found) and len(found[near]) == 1 for near in (number - 1, number + 1)
    )


def language_of(text: str) -> str | None:
    """`en`, `es`, `zh`, `vi`, `tl` or `ko`: the language `text` counts most for (see above).

    Words are compared as the gates compare text (`normalise`: NFKC, look-alikes folded,
    accents dropped), so a disguised text is read as what it says. None when it counts for
    none, or for two alike (`311`, `banana`, `a me no`).
    """
    from gauntlet.matching import normalise  # the toy judge's import stays light

    written = unicodedata.normalize("NFKC", text).casefold()
    counts: Counter[str] = Counter()
    counts.update(
        language
        for char in written
        if not char.isascii() and (language := _letter_of(char)) is not None
    )
    found = _WORD.findall(normalise(text))
    for number, word in enumerate(found):
        if len(word) == 1 and _spaced_out(found, number):
            continue
        for language, words in WORDS.items():
            if word in words:
                counts[language] += 1
    if SPANISH_SIGNS & set(written) and not counts["vi"]:
        counts["es"] += 2
    ranked = counts.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]

"""How the toys tell English from Spanish: one rule for the toy target and the toy judge.

Both toys need to know which of their two languages a text is written in (the OpenAI-shaped
toy is told no language, so it reads the user's words; the toy judge checks an answer is in
the asker's language), and a gate's language check must not turn on two detectors that
disagree.
"""

from __future__ import annotations

import re
import unicodedata


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


SPANISH_WORDS = _word_set(
    "abre al cada cierra ciudad como con cual cuando de del desde donde el ella ellos en entre "
    "es esa ese esta este esto estos estoy fue hay la las le les llame lo los mas mi mis muy "
    "nos o para pero por porque puede que quien se si sobre son su sus te tengo tiene todo "
    "todos tu tus un una uno usted ustedes y ya yo"
)
"""Common Spanish words, folded (`más` is `mas`): each counts one for Spanish."""
ENGLISH_WORDS = _word_set(
    "about an and any are as at be but by call can city closed could did do does each every "
    "for from get has have her his how i if in into is it its just my not of on open opens or "
    "our please should so than that the their them then there these they this to was we were "
    "what when where which who why will with would you your"
)
"""Common English words: each counts one for English. Words of both languages (`a`, `me`,
`no`) are in neither list."""
SPANISH_LETTERS = frozenset("¿¡ñáéíóúü")
"""Signs of Spanish: any of them anywhere counts two for Spanish."""

_WORD = re.compile(r"[a-z]+")


def language_of(text: str) -> str | None:
    """`es` or `en`, by which language's common words (and Spanish letters) `text` leans to.

    Words are compared as the gates compare text (`normalise`: NFKC, look-alikes folded,
    accents dropped), so a disguised text is read as what it says. None when it leans
    neither way (`311`, `banana`, `a me no`).
    """
    from gauntlet.matching import normalise  # the toy judge's import stays light

    words = _WORD.findall(normalise(text))
    lean = sum(word in SPANISH_WORDS for word in words)
    lean -= sum(word in ENGLISH_WORDS for word in words)
    if SPANISH_LETTERS & set(unicodedata.normalize("NFKC", text).casefold()):
        lean += 2
    if lean == 0:
        return None
    return "es" if lean > 0 else "en"

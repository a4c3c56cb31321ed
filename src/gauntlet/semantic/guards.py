"""The guards: what similarity must never be trusted with, checked by rule before it is asked.

Embedders score a negated sentence, or one with another number, as close to the original as
a rewording (0.88 to 0.98 for the models measured for issue 32), so two rules run first and
either fails the answer whatever its similarity:

- **Numbers.** Every number in the gold answer appears in the answer. A number is a run of
  digits (any script's, after NFKC, so full-width digits count), with `.` or `,` between
  groups read every way the languages here write them: `1,000` is one thousand or one point
  zero; `3.5` is three and a half, never thirty-five. A number written as a word is not read,
  so a reworded answer that spells a number out fails: the safe side.
- **Negation.** A negation present in one and not the other fails it. Each language has its
  negation words (`NEGATIONS`); a language without a list has no negation guard, and
  `guarded_languages` says which have one.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Mapping
from decimal import Decimal, InvalidOperation
from types import MappingProxyType

import regex

from gauntlet.languages import primary_language

_NUMBER = regex.compile(r"\d+(?:[.,]\d+)*")

NEGATIONS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "en": (
            "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "cannot",
            "without", "n't",
        ),
        "es": (
            "no", "nunca", "jamás", "ni", "ningún", "ninguna", "ninguno", "nadie", "nada",
            "tampoco", "sin",
        ),
    }
)  # fmt: skip
"""Each language's negation words, casefolded; a word ending in `'t` counts for English."""

_WORDS = regex.compile(r"[\p{L}\p{M}']+")


def guarded_languages() -> frozenset[str]:
    """The languages (primary subtags) whose negation is guarded."""
    return frozenset(NEGATIONS)


def guard_problems(expected: str, answer: str, language: str) -> tuple[str, ...]:
    """Why similarity may not pass `answer` as `expected` reworded; empty when it may be asked."""
    return tuple(_problems(_folded(expected), _folded(answer), primary_language(language)))


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")


def _problems(expected: str, answer: str, language: str) -> Iterator[str]:
    found = set().union(*(_readings(number) for number in _NUMBER.findall(answer)))
    for number in dict.fromkeys(_NUMBER.findall(expected)):
        if not _readings(number) & found:
            yield f"the answer does not have the number {number} the expected answer has"
    words = NEGATIONS.get(language)
    if words is not None:
        said, says = _negated(expected, words), _negated(answer, words)
        if said != says:
            where = "the expected answer" if said else "the answer"
            yield f"{where} has a negation the other does not"


def _negated(text: str, words: tuple[str, ...]) -> bool:
    for word in _WORDS.findall(text):
        if word in words or ("n't" in words and word.endswith("n't")):
            return True
    return False


def _readings(number: str) -> set[Decimal]:
    """Every value `number` can be read as: `.` and `,` each a decimal mark or a thousands one."""
    readings = set()
    for decimal_mark, group_mark in ((".", ","), (",", ".")):
        groups = number.split(group_mark)
        if len(groups) > 1 and any(len(group.split(decimal_mark)[0]) != 3 for group in groups[1:]):
            continue  # not a thousands mark: groups after it have three digits
        plain = "".join(groups)
        if plain.count(decimal_mark) > 1:
            continue
        try:
            readings.add(Decimal(plain.replace(decimal_mark, ".")).normalize())
        except InvalidOperation:  # pragma: no cover - the pattern allows only digits and marks
            continue
    return readings


__all__ = ["NEGATIONS", "guard_problems", "guarded_languages"]
